import type { Queryable } from '../../db/store.ts';
import { type EventRecord, listEventsOfObjects } from '../events/index.ts';
import { type StoredNotification, listNotificationsForPayment } from '../notifications/index.ts';
import { type Refund, listRefundsOfPayment } from '../refunds/index.ts';
import { type DeliveryRecord, listDeliveriesOfEvents } from '../webhooks/index.ts';
import { type Attempt, type Payment, findPayment, listAttempts } from '../payments/index.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Everything that happened to one payment, in time order (the dashboard's payment screen): its
 * attempts at providers, the provider notifications about it, its refunds, and its events (and its
 * refunds' events) each with the webhook deliveries made for it and their HTTP attempts. Each part
 * is read by the module that owns it, scoped by merchant and environment; a payment of another
 * tenant has no timeline (undefined, like an unknown id).
 */
export type TimelineEntry =
  | { kind: 'attempt'; at: Date; attempt: Attempt }
  | { kind: 'notification'; at: Date; notification: StoredNotification }
  | { kind: 'refund'; at: Date; refund: Refund }
  | { kind: 'event'; at: Date; event: EventRecord; deliveries: DeliveryRecord[] };

export interface PaymentTimeline {
  payment: Payment;
  refunds: Refund[];
  entries: TimelineEntry[];
  /** True when the event or delivery bounds cut the history short. */
  truncated: boolean;
}

/** Bounds: a payment's history is small, but a redelivery loop must not make a page unbounded. */
export const TIMELINE_MAX_EVENTS = 200;
export const TIMELINE_MAX_DELIVERIES = 500;

const KIND_ORDER: Record<TimelineEntry['kind'], number> = { attempt: 0, notification: 1, refund: 2, event: 3 };

export async function paymentTimeline(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
): Promise<PaymentTimeline | undefined> {
  const payment = await findPayment(q, merchantId, environment, paymentId);
  if (payment === undefined) return undefined;
  const [attempts, notifications, refunds] = [
    await listAttempts(q, payment.id),
    await listNotificationsForPayment(q, merchantId, environment, payment.id),
    await listRefundsOfPayment(q, merchantId, environment, payment.id),
  ];
  const events = await listEventsOfObjects(
    q,
    merchantId,
    environment,
    [payment.id, ...refunds.map((r) => r.id)],
    TIMELINE_MAX_EVENTS + 1,
  );
  const shownEvents = events.slice(0, TIMELINE_MAX_EVENTS);
  const deliveries = await listDeliveriesOfEvents(
    q,
    merchantId,
    environment,
    shownEvents.map((e) => e.id),
    TIMELINE_MAX_DELIVERIES + 1,
  );
  const byEvent = new Map<string, DeliveryRecord[]>();
  for (const d of deliveries.slice(0, TIMELINE_MAX_DELIVERIES)) {
    const list = byEvent.get(d.eventId) ?? [];
    list.push(d);
    byEvent.set(d.eventId, list);
  }
  const entries: TimelineEntry[] = [
    ...attempts.map((a): TimelineEntry => ({ kind: 'attempt', at: a.createdAt, attempt: a })),
    ...notifications.map((n): TimelineEntry => ({ kind: 'notification', at: n.receivedAt, notification: n })),
    ...refunds.map((r): TimelineEntry => ({ kind: 'refund', at: r.createdAt, refund: r })),
    ...shownEvents.map((e): TimelineEntry => ({ kind: 'event', at: e.createdAt, event: e, deliveries: byEvent.get(e.id) ?? [] })),
  ];
  // Stable: same-instant entries keep cause before effect (attempt, notification, refund, event).
  entries.sort((x, y) => x.at.getTime() - y.at.getTime() || KIND_ORDER[x.kind] - KIND_ORDER[y.kind]);
  return {
    payment,
    refunds,
    entries,
    truncated: events.length > TIMELINE_MAX_EVENTS || deliveries.length > TIMELINE_MAX_DELIVERIES,
  };
}
