import { type Statement, withCtes } from '../../db/statement.ts';
import type { Queryable, Store } from '../../db/store.ts';
import type { StoredEvent } from '../events/index.ts';
import { endpointFromPrefixedRow, prefixedEndpointColumns, type Tenant } from './endpoint-repo.ts';
import type { AttemptOutcome } from './retry-policy.ts';
import type { DeliveryFailureReason, DeliveryStatus, WebhookEndpoint } from './webhook-types.ts';
import type { Environment } from '../../kernel/index.ts';
import { planStable } from '../../db/plan-stable.ts';

/**
 * Data access for the outbox: the fan-out queue, deliveries and their attempts. The concurrency
 * rules (who may claim what, and how a dead worker's work comes back) live in the SQL here and
 * are explained next to each statement.
 */

// ---------------------------------------------------------------------------------------------
// Fan-out

export interface QueuedEvent {
  eventId: string;
  /** Undefined when the event row is gone (cannot happen while retention skips queued events). */
  event?: Tenant & { type: string; objectType: string; objectId: string; relatedPaymentId: string | null };
}

/**
 * The lock of one fan-out batch. The queue rows are taken (and locked) in a subquery with its own
 * LIMIT, and only those are joined to `events`, one primary-key probe each: a flat join with the
 * LIMIT on top lets the planner walk all of `events_pkey`, so fan-out would slow down as history
 * grows (decision 0013, "Measured"). Exported for the plan test.
 */
export const LOCK_QUEUED_EVENTS_SQL = `SELECT q.event_id, e.merchant_id, e.environment, e.type, e.object_type, e.object_id,
        e.payload -> 'data' -> 'object' ->> 'payment_id' AS related_payment_id
   FROM (SELECT event_id FROM webhook_fanout_queue ORDER BY event_id LIMIT $1 FOR UPDATE SKIP LOCKED) q
   LEFT JOIN LATERAL (SELECT * FROM events WHERE id = q.event_id OFFSET 0) e ON TRUE
  ORDER BY q.event_id`;

/**
 * Takes up to `limit` queued events, locking their queue rows so that concurrent dispatchers take
 * disjoint batches (SKIP LOCKED: nobody waits). Must run inside the transaction that creates the
 * deliveries and then deletes the queue rows, so a crash in between leaves the events queued.
 */
export async function lockQueuedEvents(tx: Queryable, limit: number): Promise<QueuedEvent[]> {
  const rows = await tx.query<{
    event_id: string;
    merchant_id: string | null;
    environment: Environment | null;
    type: string | null;
    object_type: string | null;
    object_id: string | null;
    related_payment_id: string | null;
  }>(LOCK_QUEUED_EVENTS_SQL, [limit]);
  return rows.map((r) =>
    r.merchant_id === null || r.environment === null
      ? { eventId: r.event_id }
      : {
          eventId: r.event_id,
          event: {
            merchantId: r.merchant_id,
            environment: r.environment,
            type: r.type ?? '',
            objectType: r.object_type ?? '',
            objectId: r.object_id ?? '',
            relatedPaymentId: r.related_payment_id,
          },
        },
  );
}

/** Cheap idle check, outside any transaction: an idle dispatcher then opens none. */
export async function anyQueuedEvent(q: Queryable): Promise<boolean> {
  const rows = await q.query('SELECT 1 AS one FROM webhook_fanout_queue LIMIT 1');
  return rows.length > 0;
}

export async function dequeueEvents(tx: Queryable, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length === 0) return;
  await tx.query('DELETE FROM webhook_fanout_queue WHERE event_id = ANY($1::text[])', [eventIds]);
}

/** The callback_url of payments, each checked against its tenant. */
export async function callbackUrlsOf(q: Queryable, keys: readonly (Tenant & { id: string })[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await q.query<{ id: string; callback_url: string }>(
    `SELECT id, callback_url FROM payments
     WHERE (id, merchant_id, environment) IN (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))
       AND callback_url IS NOT NULL`,
    [keys.map((k) => k.id), keys.map((k) => k.merchantId), keys.map((k) => k.environment)],
  );
  return new Map(rows.map((r) => [r.id, r.callback_url]));
}

// ---------------------------------------------------------------------------------------------
// Deliveries

export type DeliveryTrigger = 'event' | 'redelivery';

/** One event to one target: an endpoint, or a payment's callback URL. */
export interface DeliveryTarget {
  id: string;
  eventId: string;
  merchantId: string;
  environment: Environment;
  endpointId: string | null;
  callbackUrl: string | null;
  targetKey: string;
}

export interface NewDelivery extends DeliveryTarget {
  trigger: DeliveryTrigger;
}

/** Plan-stable (an insert from arrays): marked once, not on every fan-out. */
const INSERT_DELIVERIES_SQL = planStable(
  `INSERT INTO webhook_deliveries (id, event_id, merchant_id, environment, endpoint_id, callback_url, target_key, trigger,
         status, next_attempt_at, created_at, updated_at)
       SELECT t.id, t.event_id, t.merchant_id, t.environment, t.endpoint_id, t.callback_url, t.target_key, t.trigger,
         'pending', $9, $9, $9
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
         AS t(id, event_id, merchant_id, environment, endpoint_id, callback_url, target_key, trigger)`,
);

/** One statement for a whole batch (arrays unnested), due at `now`. */
export async function insertDeliveries(q: Queryable, deliveries: readonly NewDelivery[], now: Date): Promise<void> {
  if (deliveries.length === 0) return;
  const col = <K extends keyof NewDelivery>(k: K) => deliveries.map((d) => d[k]);
  await q.query(INSERT_DELIVERIES_SQL, [
    col('id'),
    col('eventId'),
    col('merchantId'),
    col('environment'),
    col('endpointId'),
    col('callbackUrl'),
    col('targetKey'),
    col('trigger'),
    now,
  ]);
}

export interface ClaimedDelivery extends DeliveryTarget {
  attemptCount: number;
  leaseToken: string;
  /** Where the claimed row version lies (its ctid): the settle finds it without an index. */
  rowTid: string;
}

/** A claim's rows, with what sending them needs, read by the same statement. */
export interface ClaimedBatch {
  deliveries: ClaimedDelivery[];
  /** Event payloads by event id. */
  payloads: Map<string, StoredEvent>;
  /** The claimed deliveries' endpoints by id; a deleted endpoint is absent. */
  endpoints: Map<string, WebhookEndpoint>;
}

export interface ClaimRequest {
  now: Date;
  /** The lease: a claimed delivery becomes due again at this time unless its attempt is recorded. */
  leaseUntil: Date;
  leaseToken: string;
  limit: number;
  /** Most deliveries of one target this worker may have in flight. */
  perTargetLimit: number;
  /** Deliveries this worker already has in flight, per target. */
  inFlight: ReadonlyMap<string, number>;
  /** How many due rows to look at (oldest first) when choosing. */
  scanLimit: number;
}

/**
 * Claims due deliveries for this worker.
 *
 * - `FOR UPDATE … SKIP LOCKED`: concurrent workers never wait on each other nor claim the same
 *   row; a row another worker is claiming right now is skipped.
 * - The claim *is* the lease: `leased_until` is set, so the row is not claimable for anyone
 *   else until then. A worker that dies after claiming simply lets its leases expire and the rows
 *   come back (at-least-once; the in-flight batch may be sent twice). The token fences the later
 *   write: only the lease holder records the outcome. Neither column is in an index, so the claim
 *   is a HOT update (migration 0014); the due scan passes over the rows in flight (at most the
 *   workers' slots) and skips them by `leased_until`.
 * - The final re-check (pending, due, not leased) runs on the row after locking: another worker
 *   may have claimed it between our snapshot and our lock.
 * - Picked rows are found again by their row address (`ctid = ANY(ARRAY(…))`, a TID scan), not
 *   by id: recording an outcome is a non-HOT update, so the primary key holds dead entries per
 *   delivery until vacuum, and probing it dominated a claim's reads. If another worker updated
 *   the row since our snapshot, the lock follows it and the final re-check decides.
 * - The due rows are read by walking the due index in order (bitmap scans are off for this one
 *   transaction): a bitmap scan collects every dead due entry since the last vacuum, an ordered
 *   scan stops at the LIMIT and marks the dead entries it passes. Figures in decision 0013.
 * - Per-target limit: the window ranks due rows per target and skips those beyond what this
 *   worker may still start for that target, so one slow receiver cannot take every slot; targets
 *   already at their limit are left out of the scan entirely, so their backlog does not fill it.
 */
export async function claimDueDeliveries(store: Store, c: ClaimRequest): Promise<ClaimedBatch> {
  return store.transaction(async (tx) => {
    // One round trip for both settings. A claim is a lease, not a fact, so its commit does not wait
    // for the WAL flush: a claim the database loses in a crash leaves the delivery due again, and
    // it is sent again — at least once, as after a worker's crash (the settle, fenced by the
    // lease token, stays a synchronous commit and flushes the claim's WAL with its own).
    await tx.exec(CLAIM_SETTINGS_SQL);
    return claimIn(tx, c);
  });
}

/** The claim's settings for its own transaction (see claimDueDeliveries); exported for bench/history.ts. */
export const CLAIM_SETTINGS_SQL = 'SET LOCAL enable_bitmapscan = off; SET LOCAL synchronous_commit = off';

/**
 * The claim (see claimDueDeliveries), and in the same statement what sending the claimed rows
 * needs: each event's payload (once per event: the other rows of the same event carry NULL) and
 * each delivery's endpoint, both checked against the delivery's tenant. A deleted endpoint joins
 * nothing (the delivery is then canceled); an event cannot be missing (deliveries reference it).
 */
const CLAIM_SQL = `WITH due AS (
       SELECT ctid, id, target_key, next_attempt_at FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= $1 AND NOT (target_key = ANY($2::text[]))
         AND (leased_until IS NULL OR leased_until <= $1)
       ORDER BY next_attempt_at LIMIT $3
     ), ranked AS (
       SELECT due.ctid, due.next_attempt_at,
              row_number() OVER (PARTITION BY due.target_key COLLATE "C" ORDER BY due.next_attempt_at) + coalesce(busy.n, 0) AS slot
       FROM due LEFT JOIN unnest($4::text[], $5::int[]) AS busy(target_key, n) ON busy.target_key = due.target_key
     ), picked AS (
       SELECT d.ctid FROM webhook_deliveries d
       WHERE d.ctid = ANY(ARRAY(SELECT ctid FROM ranked WHERE slot <= $6))
       ORDER BY d.next_attempt_at LIMIT $7
       FOR UPDATE OF d SKIP LOCKED
     ), claimed AS (
       UPDATE webhook_deliveries d SET leased_until = $8, lease_token = $9, updated_at = $1
       WHERE d.ctid = ANY(ARRAY(SELECT ctid FROM picked)) AND coalesce(d.status, '') = 'pending' AND d.next_attempt_at <= $1
         AND (d.leased_until IS NULL OR d.leased_until <= $1)
       RETURNING d.ctid::text AS row_tid, d.id, d.event_id, d.merchant_id, d.environment, d.endpoint_id, d.callback_url, d.target_key,
         d.attempt_count
     )
     SELECT c.*,
            CASE WHEN row_number() OVER (PARTITION BY c.event_id COLLATE "C") = 1 THEN e.payload END AS payload,
            ${prefixedEndpointColumns('ep')}
     FROM claimed c
     LEFT JOIN events e ON e.id = c.event_id AND e.merchant_id = c.merchant_id AND e.environment = c.environment
     LEFT JOIN webhook_endpoints ep ON ep.id = c.endpoint_id AND ep.merchant_id = c.merchant_id
       AND ep.environment = c.environment AND ep.deleted_at IS NULL`;

/** The claim as a statement, for `c`; exported so bench/history.ts can EXPLAIN the real one. */
export function claimStatement(c: ClaimRequest): Statement {
  const saturated = [...c.inFlight].filter(([, n]) => n >= c.perTargetLimit).map(([k]) => k);
  const busy = [...c.inFlight].filter(([, n]) => n > 0 && n < c.perTargetLimit);
  return {
    text: CLAIM_SQL,
    params: [
      c.now,
      saturated,
      c.scanLimit,
      busy.map(([k]) => k),
      busy.map(([, n]) => n),
      c.perTargetLimit,
      c.limit,
      c.leaseUntil,
      c.leaseToken,
    ],
  };
}

async function claimIn(q: Queryable, c: ClaimRequest): Promise<ClaimedBatch> {
  const claim = claimStatement(c);
  const rows = await q.query<{
    row_tid: string;
    id: string;
    event_id: string;
    merchant_id: string;
    environment: Environment;
    endpoint_id: string | null;
    callback_url: string | null;
    target_key: string;
    attempt_count: number;
    payload: StoredEvent | null;
    [key: string]: unknown;
  }>(claim.text, claim.params);
  const batch: ClaimedBatch = { deliveries: [], payloads: new Map(), endpoints: new Map() };
  for (const r of rows) {
    batch.deliveries.push({
      id: r.id,
      eventId: r.event_id,
      merchantId: r.merchant_id,
      environment: r.environment,
      endpointId: r.endpoint_id,
      callbackUrl: r.callback_url,
      targetKey: r.target_key,
      attemptCount: r.attempt_count,
      leaseToken: c.leaseToken,
      rowTid: r.row_tid,
    });
    if (r.payload !== null) batch.payloads.set(r.event_id, r.payload);
    // Many rows share an endpoint: build it once per claim, not once per row.
    if (r.endpoint_id !== null && !batch.endpoints.has(r.endpoint_id)) {
      const endpoint = endpointFromPrefixedRow(r);
      if (endpoint !== undefined) batch.endpoints.set(endpoint.id, endpoint);
    }
  }
  return batch;
}

export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attemptNumber: number;
  url: string;
  outcome: AttemptOutcome;
  statusCode: number | null;
  durationMs: number;
  responseBody: string | null;
  error: string | null;
  attemptedAt: Date;
}

/** The attempts of a batch of sends, as one statement (arrays unnested). */
function insertAttemptsStatement(attempts: readonly AttemptRecord[]): Statement {
  const col = <K extends keyof AttemptRecord>(k: K) => attempts.map((a) => a[k]);
  return {
    text: `INSERT INTO webhook_attempts (id, delivery_id, attempt_number, url, outcome, status_code, duration_ms, response_body, error, attempted_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::text[], $9::text[],
       $10::timestamptz[])`,
    params: [
      col('id'),
      col('deliveryId'),
      col('attemptNumber'),
      col('url'),
      col('outcome'),
      col('statusCode'),
      col('durationMs'),
      col('responseBody'),
      col('error'),
      attempts.map((a) => a.attemptedAt.toISOString()),
    ],
  };
}

export type DeliveryOutcome =
  | { status: 'succeeded' }
  | { status: 'pending'; nextAttemptAt: Date }
  | { status: 'failed' | 'canceled'; reason: DeliveryFailureReason };

export interface DeliveryResult {
  delivery: { id: string; leaseToken: string; rowTid: string };
  outcome: DeliveryOutcome;
  attempted: boolean;
  statusCode: number | null;
}

/**
 * Records what happened to claimed deliveries — their attempts inserted, their rows settled — in
 * ONE statement (one round trip, one implicit transaction when the caller has none), each row
 * fenced by its lease token: if a lease expired and another worker claimed the row meanwhile,
 * that row is not written (the other worker owns it now; its own attempt decides), while the
 * attempt that was made is recorded all the same. Returns the ids that were settled.
 * Rows are reached by the address the claim returned (a TID scan, no index; see the claim); a
 * row whose version moved since (another worker claimed it) is not visible there and is not
 * written, which is what the token fences anyway.
 */
export async function recordAttempts(
  q: Queryable,
  attempts: readonly AttemptRecord[],
  items: readonly DeliveryResult[],
  now: Date,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const settle: Statement = {
    text: `UPDATE webhook_deliveries d SET status = v.status, failure_reason = v.reason, next_attempt_at = v.next_at, lease_token = NULL, leased_until = NULL,
       attempt_count = d.attempt_count + v.attempted,
       last_attempt_at = CASE WHEN v.attempted = 1 THEN $8::timestamptz ELSE d.last_attempt_at END,
       last_status_code = CASE WHEN v.attempted = 1 THEN v.status_code ELSE d.last_status_code END,
       completed_at = CASE WHEN v.status = 'pending' THEN NULL ELSE $8::timestamptz END, updated_at = $8
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::int[], $7::int[])
       AS v(id, token, status, reason, next_at, attempted, status_code)
     WHERE d.ctid = ANY($9::tid[]) AND d.id = v.id AND d.lease_token = v.token AND d.status = 'pending'
     RETURNING d.id`,
    params: [
      items.map((i) => i.delivery.id),
      items.map((i) => i.delivery.leaseToken),
      items.map((i) => i.outcome.status),
      items.map((i) => (i.outcome.status === 'failed' || i.outcome.status === 'canceled' ? i.outcome.reason : null)),
      items.map((i) => (i.outcome.status === 'pending' ? i.outcome.nextAttemptAt.toISOString() : null)),
      items.map((i) => (i.attempted ? 1 : 0)),
      items.map((i) => i.statusCode),
      now,
      items.map((i) => i.delivery.rowTid),
    ],
  };
  const s = attempts.length === 0 ? settle : withCtes([['attempts', insertAttemptsStatement(attempts)]], settle);
  const rows = await q.query<{ id: string }>(s.text, s.params);
  return new Set(rows.map((r) => r.id));
}

/**
 * Cancels the queued deliveries of an endpoint (it was disabled or deleted). Deliveries a worker
 * holds right now are left to it: it records its attempt, and if that schedules a retry, the
 * next claim cancels it (the endpoint is no longer enabled then).
 */
export async function cancelPendingDeliveriesOf(
  q: Queryable,
  t: Tenant & { endpointId: string },
  reason: 'endpoint_disabled' | 'endpoint_deleted',
  now: Date,
): Promise<number> {
  const rows = await q.query(
    `UPDATE webhook_deliveries SET status = 'canceled', failure_reason = $4, next_attempt_at = NULL, lease_token = NULL,
       completed_at = $5, updated_at = $5
     WHERE endpoint_id = $1 AND merchant_id = $2 AND environment = $3 AND status = 'pending' AND lease_token IS NULL
     RETURNING id`,
    [t.endpointId, t.merchantId, t.environment, reason, now],
  );
  return rows.length;
}

/**
 * Embedded store only, at start: this process is the only one that can hold leases, so every
 * lease still held belongs to its dead predecessor and the delivery is due at once.
 */
export async function releaseAllDeliveryLeases(q: Queryable, now: Date): Promise<number> {
  const rows = await q.query(
    `UPDATE webhook_deliveries SET next_attempt_at = least(next_attempt_at, $1), lease_token = NULL, leased_until = NULL,
       updated_at = $1
     WHERE status = 'pending' AND next_attempt_at IS NOT NULL AND lease_token IS NOT NULL RETURNING id`,
    [now],
  );
  return rows.length;
}

// ---------------------------------------------------------------------------------------------
// The delivery log

export interface DeliveryRecord {
  id: string;
  eventId: string;
  endpointId: string | null;
  callbackUrl: string | null;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  failureReason: DeliveryFailureReason | null;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  createdAt: Date;
  completedAt: Date | null;
  attempts: AttemptRecord[];
}

export async function listDeliveriesOfEvent(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  eventId: string,
  limit: number,
): Promise<DeliveryRecord[]> {
  return listDeliveriesOfEvents(q, merchantId, environment, [eventId], limit);
}

/** The deliveries of several events (the dashboard's payment timeline), oldest first, with their attempts. */
export async function listDeliveriesOfEvents(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  eventIds: readonly string[],
  limit: number,
): Promise<DeliveryRecord[]> {
  if (eventIds.length === 0) return [];
  const rows = await q.query<{
    id: string;
    event_id: string;
    endpoint_id: string | null;
    callback_url: string | null;
    trigger: DeliveryTrigger;
    status: DeliveryStatus;
    failure_reason: DeliveryFailureReason | null;
    attempt_count: number;
    next_attempt_at: Date | null;
    last_attempt_at: Date | null;
    last_status_code: number | null;
    created_at: Date;
    completed_at: Date | null;
  }>(
    `SELECT id, event_id, endpoint_id, callback_url, trigger, status, failure_reason, attempt_count,
            greatest(next_attempt_at, leased_until) AS next_attempt_at, last_attempt_at, last_status_code, created_at, completed_at
     FROM webhook_deliveries WHERE event_id = ANY($1::text[]) AND merchant_id = $2 AND environment = $3
     ORDER BY created_at, id LIMIT $4`,
    [eventIds, merchantId, environment, limit],
  );
  const attempts = await q.query<{
    id: string;
    delivery_id: string;
    attempt_number: number;
    url: string;
    outcome: AttemptOutcome;
    status_code: number | null;
    duration_ms: number;
    response_body: string | null;
    error: string | null;
    attempted_at: Date;
  }>(
    `SELECT id, delivery_id, attempt_number, url, outcome, status_code, duration_ms, response_body, error, attempted_at
     FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY attempted_at, attempt_number, id`,
    [rows.map((r) => r.id)],
  );
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id) ?? [];
    list.push({
      id: a.id,
      deliveryId: a.delivery_id,
      attemptNumber: a.attempt_number,
      url: a.url,
      outcome: a.outcome,
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      responseBody: a.response_body,
      error: a.error,
      attemptedAt: a.attempted_at,
    });
    byDelivery.set(a.delivery_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    callbackUrl: r.callback_url,
    trigger: r.trigger,
    status: r.status,
    failureReason: r.failure_reason,
    attemptCount: r.attempt_count,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    lastStatusCode: r.last_status_code,
    createdAt: r.created_at,
    completedAt: r.completed_at,
    attempts: byDelivery.get(r.id) ?? [],
  }));
}

/** How an endpoint's recent deliveries went (the dashboard's webhook endpoints screen). */
export interface EndpointHealth {
  endpointId: string;
  /** HTTP attempts made since `since`, and how many of them succeeded (2xx). */
  attempts: number;
  succeeded: number;
  /** Deliveries still waiting for an attempt or a retry. */
  pending: number;
  lastSuccessAt: Date | null;
  lastFailure: Pick<AttemptRecord, 'attemptedAt' | 'outcome' | 'statusCode' | 'error' | 'url'> | null;
}

/**
 * Per endpoint of the tenant: the attempts of deliveries created since `since` (index
 * webhook_deliveries_by_endpoint_created), pending deliveries, and the latest failed attempt.
 */
export async function endpointHealth(
  q: Queryable,
  tenant: Tenant,
  endpointIds: readonly string[],
  since: Date,
): Promise<Map<string, EndpointHealth>> {
  const health = new Map<string, EndpointHealth>(
    endpointIds.map((id) => [
      id,
      { endpointId: id, attempts: 0, succeeded: 0, pending: 0, lastSuccessAt: null, lastFailure: null },
    ]),
  );
  if (endpointIds.length === 0) return health;
  const params = [endpointIds, tenant.merchantId, tenant.environment, since];
  const recent = `FROM webhook_deliveries d WHERE d.endpoint_id = ANY($1::text[]) AND d.merchant_id = $2 AND d.environment = $3
    AND d.created_at >= $4`;
  const counts = await q.query<{ endpoint_id: string; attempts: bigint; succeeded: bigint; last_success_at: Date | null }>(
    `SELECT d.endpoint_id, count(a.id) AS attempts, count(a.id) FILTER (WHERE a.outcome = 'succeeded') AS succeeded,
            max(a.attempted_at) FILTER (WHERE a.outcome = 'succeeded') AS last_success_at
     ${recent.replace('FROM webhook_deliveries d', 'FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id')}
     GROUP BY d.endpoint_id`,
    params,
  );
  const pending = await q.query<{ endpoint_id: string; n: bigint }>(
    `SELECT d.endpoint_id, count(*) AS n FROM webhook_deliveries d
     WHERE d.endpoint_id = ANY($1::text[]) AND d.merchant_id = $2 AND d.environment = $3 AND d.status = 'pending'
     GROUP BY d.endpoint_id`,
    params.slice(0, 3),
  );
  const failures = await q.query<{
    endpoint_id: string;
    attempted_at: Date;
    outcome: AttemptOutcome;
    status_code: number | null;
    error: string | null;
    url: string;
  }>(
    `SELECT DISTINCT ON (d.endpoint_id) d.endpoint_id, a.attempted_at, a.outcome, a.status_code, a.error, a.url
     ${recent.replace('FROM webhook_deliveries d', 'FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id')}
       AND a.outcome <> 'succeeded'
     ORDER BY d.endpoint_id, a.attempted_at DESC, a.id DESC`,
    params,
  );
  for (const r of counts) {
    const h = health.get(r.endpoint_id);
    if (h === undefined) continue;
    // Counts, not money: bounded by retention, far below 2^53.
    h.attempts = Number(r.attempts);
    h.succeeded = Number(r.succeeded);
    h.lastSuccessAt = r.last_success_at;
  }
  for (const r of pending) {
    const h = health.get(r.endpoint_id);
    if (h !== undefined) h.pending = Number(r.n);
  }
  for (const r of failures) {
    const h = health.get(r.endpoint_id);
    if (h === undefined) continue;
    h.lastFailure = { attemptedAt: r.attempted_at, outcome: r.outcome, statusCode: r.status_code, error: r.error, url: r.url };
  }
  return health;
}

// ---------------------------------------------------------------------------------------------
// Retention

/** Deletes succeeded deliveries (and, by cascade, their attempts) completed before `before`. */
export async function deleteSucceededDeliveries(q: Queryable, before: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE status = 'succeeded' AND completed_at < $1 LIMIT $2)
     RETURNING id`,
    [before, limit],
  );
  return rows.length;
}

/**
 * Deletes events created before `before` (`idBefore` is the smallest event id of that instant:
 * ids are time-ordered, so the primary key finds them without an index on created_at, which
 * would cost every insert on the hot path). An event still queued for fan-out or with a pending
 * delivery is kept; its remaining deliveries and attempts go with it.
 */
export async function deleteOldEvents(q: Queryable, before: Date, idBefore: string, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM events WHERE id IN (
       SELECT e.id FROM events e
       WHERE e.id < $2 AND e.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM webhook_fanout_queue f WHERE f.event_id = e.id)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
       ORDER BY e.id LIMIT $3)
     RETURNING id`,
    [before, idBefore, limit],
  );
  return rows.length;
}
