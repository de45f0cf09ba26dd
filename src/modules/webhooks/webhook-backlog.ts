import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * How far the webhook pipeline is behind, for the operator's metrics (docs/operations.md). These
 * are the only webhook reads that cross tenants: they return counts and ages, never a merchant's
 * data. Each one is an index look-up or a bounded scan, because a scrape runs them every few
 * seconds:
 *
 * - the oldest event still waiting for fan-out: event ids are time-ordered, so the smallest id in
 *   `webhook_fanout_queue` (its primary key) is the oldest, and one primary-key look-up in `events`
 *   gives its time;
 * - the oldest due delivery nobody holds: the first rows of the partial index
 *   `webhook_deliveries_due`; deliveries waiting for a later retry are not backlog, and the leased
 *   ones (at most the dispatchers' concurrency) are being sent;
 * - the due deliveries, counted up to DUE_COUNT_CAP so that a huge backlog costs a bounded scan;
 * - enabled endpoints and those failing (`failing_since` set: every attempt since then failed),
 *   per environment: a few rows per merchant (at most 20 per environment).
 */
export const DUE_COUNT_CAP = 10_000;

const ENVIRONMENTS: readonly Environment[] = ['sandbox', 'production'];

export interface WebhookBacklog {
  oldestQueuedEventAt: Date | null;
  oldestDueDeliveryAt: Date | null;
  /** Due deliveries not being sent, at most DUE_COUNT_CAP. */
  dueDeliveries: number;
  endpoints: Record<Environment, { enabled: number; failing: number }>;
}

export async function readWebhookBacklog(q: Queryable, now: Date): Promise<WebhookBacklog> {
  const queued = await q.query<{ created_at: Date }>(
    `SELECT e.created_at FROM events e
     WHERE e.id = (SELECT min(event_id) FROM webhook_fanout_queue)`,
  );
  const due = await q.query<{ oldest: Date | null; n: bigint }>(
    `SELECT min(next_attempt_at) AS oldest, count(*) AS n FROM (
       SELECT next_attempt_at FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= $1 AND (leased_until IS NULL OR leased_until <= $1)
       ORDER BY next_attempt_at LIMIT $2) d`,
    [now, DUE_COUNT_CAP],
  );
  const endpoints = await q.query<{ environment: Environment; enabled: bigint; failing: bigint }>(
    `SELECT environment, count(*) AS enabled, count(*) FILTER (WHERE failing_since IS NOT NULL) AS failing
     FROM webhook_endpoints WHERE status = 'enabled' AND deleted_at IS NULL
     GROUP BY environment`,
  );
  const byEnvironment = Object.fromEntries(
    ENVIRONMENTS.map((e) => [e, { enabled: 0, failing: 0 }]),
  ) as WebhookBacklog['endpoints'];
  for (const r of endpoints) {
    // Counts, far below 2^53.
    byEnvironment[r.environment] = { enabled: Number(r.enabled), failing: Number(r.failing) };
  }
  return {
    oldestQueuedEventAt: queued[0]?.created_at ?? null,
    oldestDueDeliveryAt: due[0]?.oldest ?? null,
    dueDeliveries: Number(due[0]?.n ?? 0n),
    endpoints: byEnvironment,
  };
}
