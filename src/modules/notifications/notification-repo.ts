import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Inbound provider notifications (table provider_notifications). A notification is stored raw
 * once its signature checked out, keyed by (connector, provider event id) so that a redelivery is
 * recognised and stored once; processing happens afterwards (notification-processor job).
 */
export type NotificationStatus = 'received' | 'processed' | 'ignored' | 'failed';

export interface StoredNotification {
  id: string;
  connector: string;
  providerEventId: string;
  rawBody: string;
  receivedAt: Date;
  status: NotificationStatus;
  attempts: number;
  outcome: string | null;
  error: string | null;
  paymentId: string | null;
}

interface NotificationRow {
  id: string;
  connector: string;
  provider_event_id: string;
  raw_body: string;
  received_at: Date;
  status: NotificationStatus;
  attempts: number;
  outcome: string | null;
  error: string | null;
  payment_id: string | null;
  arrival: bigint;
  [key: string]: unknown;
}

const fromRow = (r: NotificationRow): StoredNotification => ({
  id: r.id,
  connector: r.connector,
  providerEventId: r.provider_event_id,
  rawBody: r.raw_body,
  receivedAt: r.received_at,
  status: r.status,
  attempts: r.attempts,
  outcome: r.outcome,
  error: r.error,
  paymentId: r.payment_id,
});

/** Stores a verified notification. Returns the stored id and whether it was new. */
export async function insertNotification(
  q: Queryable,
  n: {
    id: string;
    connector: string;
    providerEventId: string;
    rawBody: string;
    headers: Readonly<Record<string, string | undefined>>;
    now: Date;
  },
): Promise<{ id: string; duplicate: boolean }> {
  const inserted = await q.query<{ id: string }>(
    `INSERT INTO provider_notifications (id, connector, provider_event_id, raw_body, headers, received_at, status,
       next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'received', $6)
     ON CONFLICT (connector, provider_event_id) DO NOTHING RETURNING id`,
    [n.id, n.connector, n.providerEventId, n.rawBody, JSON.stringify(n.headers), n.now],
  );
  if (inserted[0] !== undefined) return { id: inserted[0].id, duplicate: false };
  const existing = await q.query<{ id: string }>(
    'SELECT id FROM provider_notifications WHERE connector = $1 AND provider_event_id = $2',
    [n.connector, n.providerEventId],
  );
  return { id: existing[0]?.id ?? n.id, duplicate: true };
}

/**
 * Claims due notifications for processing under a lease (SKIP LOCKED: several workers on
 * PostgreSQL never take the same one), oldest first, counting the attempt.
 */
export async function claimDueNotifications(
  q: Queryable,
  opts: { now: Date; leaseUntil: Date; limit: number },
): Promise<StoredNotification[]> {
  const rows = await q.query<NotificationRow>(
    `UPDATE provider_notifications SET locked_until = $2, attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM provider_notifications
       WHERE status = 'received' AND next_attempt_at <= $1 AND (locked_until IS NULL OR locked_until <= $1)
       ORDER BY arrival LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [opts.now, opts.leaseUntil, opts.limit],
  );
  // RETURNING has no order of its own: process in arrival order.
  return rows.sort((a, b) => (a.arrival < b.arrival ? -1 : 1)).map(fromRow);
}

export async function finishNotification(
  q: Queryable,
  id: string,
  r: {
    status: Exclude<NotificationStatus, 'received'>;
    outcome: string;
    error: string | null;
    owner: { merchantId: string; environment: Environment; paymentId: string; attemptId: string } | null;
    now: Date;
  },
): Promise<void> {
  await q.query(
    `UPDATE provider_notifications SET status = $2, outcome = $3, error = $4, merchant_id = $5, environment = $6,
       payment_id = $7, attempt_id = $8, processed_at = $9, locked_until = NULL
     WHERE id = $1`,
    [
      id,
      r.status,
      r.outcome.slice(0, 500),
      r.error?.slice(0, 1000) ?? null,
      r.owner?.merchantId ?? null,
      r.owner?.environment ?? null,
      r.owner?.paymentId ?? null,
      r.owner?.attemptId ?? null,
      r.now,
    ],
  );
}

/** Leaves a notification for a later try (the payment is still being created, or processing failed). */
export async function retryNotificationLater(
  q: Queryable,
  id: string,
  r: { nextAttemptAt: Date; outcome: string; error: string | null },
): Promise<void> {
  await q.query(
    `UPDATE provider_notifications SET next_attempt_at = $2, outcome = $3, error = $4, locked_until = NULL WHERE id = $1`,
    [id, r.nextAttemptAt, r.outcome.slice(0, 500), r.error?.slice(0, 1000) ?? null],
  );
}

/** The notifications that concerned one payment (merchant- and environment-scoped). */
export async function listNotificationsForPayment(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
): Promise<StoredNotification[]> {
  const rows = await q.query<NotificationRow>(
    `SELECT * FROM provider_notifications WHERE merchant_id = $1 AND environment = $2 AND payment_id = $3
     ORDER BY arrival`,
    [merchantId, environment, paymentId],
  );
  return rows.map(fromRow);
}
