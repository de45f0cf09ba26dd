import type { Queryable } from '../../db/store.ts';
import { type Checkout, findCheckout, listCheckoutSelections } from '../checkouts/index.ts';
import { type EventRecord, listEventsOfObjects } from '../events/index.ts';
import { type Payment, findPayment } from '../payments/index.ts';
import { type DeliveryRecord, listDeliveriesOfEvents } from '../webhooks/index.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Everything that happened to one checkout, in time order (the dashboard's checkout screen): its
 * creation, each selection (the payment it created, or none when the selection stopped before
 * creating it), how each of those payments ended, the checkout's completion or expiry, and its
 * events with their webhook deliveries. Built like the payment timeline: each part read by the
 * module that owns it, scoped by merchant and environment; another tenant's checkout has none.
 */
export type CheckoutTimelineEntry =
  | { kind: 'created'; at: Date }
  | { kind: 'selection'; at: Date; seq: number; paymentId: string; payment: Payment | undefined }
  | { kind: 'payment_closed'; at: Date; seq: number; payment: Payment }
  | { kind: 'completed'; at: Date; paymentId: string }
  | { kind: 'expired'; at: Date }
  | { kind: 'event'; at: Date; event: EventRecord; deliveries: DeliveryRecord[] };

export interface CheckoutTimeline {
  checkout: Checkout;
  /** The selections in order, each with its payment when it was created. */
  payments: { seq: number; paymentId: string; payment: Payment | undefined }[];
  entries: CheckoutTimelineEntry[];
  /** True when a bound below cut the history short. */
  truncated: boolean;
}

/**
 * Bounds. A payer who keeps switching methods makes one payment per switch; the page reads each
 * payment by id, so the count is bounded rather than trusted.
 */
export const CHECKOUT_TIMELINE_MAX_PAYMENTS = 50;
const MAX_EVENTS = 50;
const MAX_DELIVERIES = 200;

/**
 * Same-instant entries (a test clock, or one transaction) keep their causal order: creation, then
 * selection n and the end of its payment, before selection n + 1; the checkout's own end after
 * its payments, and its event after that.
 */
const AFTER_PAYMENTS = 2 * (CHECKOUT_TIMELINE_MAX_PAYMENTS + 1) + 1;
function causalOrder(e: CheckoutTimelineEntry): number {
  switch (e.kind) {
    case 'created':
      return 0;
    case 'selection':
      return 2 * e.seq;
    case 'payment_closed':
      return 2 * e.seq + 1;
    case 'completed':
    case 'expired':
      return AFTER_PAYMENTS;
    case 'event':
      return AFTER_PAYMENTS + 1;
  }
}

/** When a payment ended, if it did: succeeded, or closed (canceled, expired, failed). */
function endOf(payment: Payment): Date | null {
  return payment.status === 'succeeded' ? payment.succeededAt : payment.closedAt;
}

export async function checkoutTimeline(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  checkoutId: string,
): Promise<CheckoutTimeline | undefined> {
  const checkout = await findCheckout(q, merchantId, environment, checkoutId);
  if (checkout === undefined) return undefined;
  const selections = await listCheckoutSelections(q, merchantId, environment, checkout.id, CHECKOUT_TIMELINE_MAX_PAYMENTS + 1);
  const shown = selections.slice(0, CHECKOUT_TIMELINE_MAX_PAYMENTS);
  const payments: CheckoutTimeline['payments'] = [];
  for (const s of shown) {
    payments.push({ seq: s.seq, paymentId: s.paymentId, payment: await findPayment(q, merchantId, environment, s.paymentId) });
  }
  const events = await listEventsOfObjects(q, merchantId, environment, [checkout.id], MAX_EVENTS + 1);
  const shownEvents = events.slice(0, MAX_EVENTS);
  const deliveries = await listDeliveriesOfEvents(
    q,
    merchantId,
    environment,
    shownEvents.map((e) => e.id),
    MAX_DELIVERIES + 1,
  );
  const byEvent = new Map<string, DeliveryRecord[]>();
  for (const d of deliveries.slice(0, MAX_DELIVERIES)) byEvent.set(d.eventId, [...(byEvent.get(d.eventId) ?? []), d]);

  const entries: CheckoutTimelineEntry[] = [{ kind: 'created', at: checkout.createdAt }];
  shown.forEach((s, i) => {
    const payment = payments[i]?.payment;
    // The payment's own creation time when it exists; the selection's when it never was created.
    entries.push({ kind: 'selection', at: payment?.createdAt ?? s.createdAt, seq: s.seq, paymentId: s.paymentId, payment });
    const end = payment === undefined ? null : endOf(payment);
    if (payment !== undefined && end !== null) entries.push({ kind: 'payment_closed', at: end, seq: s.seq, payment });
  });
  if (checkout.closedAt !== null) {
    entries.push(
      checkout.status === 'completed' && checkout.completedPaymentId !== null
        ? { kind: 'completed', at: checkout.closedAt, paymentId: checkout.completedPaymentId }
        : { kind: 'expired', at: checkout.closedAt },
    );
  }
  for (const e of shownEvents) entries.push({ kind: 'event', at: e.createdAt, event: e, deliveries: byEvent.get(e.id) ?? [] });
  entries.sort((x, y) => x.at.getTime() - y.at.getTime() || causalOrder(x) - causalOrder(y));
  return {
    checkout,
    payments,
    entries,
    truncated:
      selections.length > CHECKOUT_TIMELINE_MAX_PAYMENTS || events.length > MAX_EVENTS || deliveries.length > MAX_DELIVERIES,
  };
}
