import type { Connection, Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { PAYMENT_STATUSES } from '../payments/index.ts';
import { TTP_BUCKET_BOUNDS_S, TTP_BUCKETS } from './time-to-pay.ts';

/**
 * The overview's day aggregates (docs/overview.md): the refresh folds what changed since its cursor
 * into `overview_cohort_days` and `overview_activity_days` by **recounting** each touched UTC day
 * from payments and refunds. A recount is idempotent (running it twice, or over an event already
 * seen, changes nothing) and costs the size of the touched days, never the size of the history.
 */

/** Session advisory lock: one process refreshes at a time on a shared PostgreSQL database. */
export const OVERVIEW_REFRESH_LOCK = '7292048211934820';
/**
 * Events are written with the application's clock in transactions that commit in any order: one
 * may appear with a created_at a little older than the cursor. Each run re-reads this much before
 * its cursor; the recount makes the re-read harmless.
 */
export const OVERVIEW_OVERLAP_MS = 120_000;
const DAY_MS = 86_400_000;

export interface OverviewRefreshDeps {
  store: Store;
  clock: Clock;
}

export interface RefreshOutcome {
  /** False when another process held the lock (it refreshes; this one skipped). */
  ran: boolean;
  daysRecomputed: number;
  /** True when there was no cursor: every day with a payment or a refund was recounted. */
  rebuilt: boolean;
}

interface DirtyDay extends Record<string, unknown> {
  merchant_id: string;
  environment: string;
  day: string;
}

/** One run of the refresh: lock, find the dirty days, recount each in its own transaction, move the cursor. */
export async function refreshOverview(deps: OverviewRefreshDeps): Promise<RefreshOutcome> {
  return deps.store.withConnection(async (conn) => {
    const [lock] = await conn.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${OVERVIEW_REFRESH_LOCK}) AS got`);
    if (lock?.got !== true) return { ran: false, daysRecomputed: 0, rebuilt: false };
    try {
      return await refreshLocked(conn, deps.clock);
    } finally {
      await conn.query(`SELECT pg_advisory_unlock(${OVERVIEW_REFRESH_LOCK})`);
    }
  });
}

async function refreshLocked(conn: Connection, clock: Clock): Promise<RefreshOutcome> {
  const startedMs = clock.now().getTime();
  const [state] = await conn.query<{ cursor_at: Date | null }>(`SELECT cursor_at FROM overview_refresh WHERE id = 'events'`);
  // The upper bound is read before the dirty days: an event written meanwhile is for the next run.
  // It is never past now: an event dated ahead (another process's clock running fast) must not
  // carry the cursor past the events written after it; it is read once now has reached it.
  const [newest] = await conn.query<{ at: Date | null }>(`SELECT max(created_at) AS at FROM events WHERE created_at <= $1`, [
    clock.now(),
  ]);
  const upper = newest?.at ?? null;
  const rebuilt = state === undefined;
  const dirty = rebuilt ? await allDays(conn) : await daysTouchedBetween(conn, state.cursor_at, upper);
  for (const day of dirty) await conn.transaction((tx) => recountDay(tx, day));
  const cursor = upper ?? state?.cursor_at ?? null;
  const now = clock.now();
  await conn.query(
    `INSERT INTO overview_refresh (id, cursor_at, last_run_at, last_duration_ms, days_recomputed)
     VALUES ('events', $1, $2, $3, $4)
     ON CONFLICT (id) DO UPDATE SET cursor_at = EXCLUDED.cursor_at, last_run_at = EXCLUDED.last_run_at,
       last_duration_ms = EXCLUDED.last_duration_ms, days_recomputed = EXCLUDED.days_recomputed`,
    [cursor, now, Math.max(0, now.getTime() - startedMs), dirty.length],
  );
  return { ran: true, daysRecomputed: dirty.length, rebuilt };
}

const utcDay = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/** Where the first run looks for days, each through an index that starts with (merchant, environment, time). */
const DAY_SOURCES = [
  { table: 'payments', column: 'created_at', where: 'true' },
  { table: 'payments', column: 'succeeded_at', where: 'succeeded_at IS NOT NULL' },
  { table: 'refunds', column: 'completed_at', where: "status = 'succeeded'" },
] as const;

/**
 * First run (or after the row was deleted): every day that has a payment created or paid, or a
 * refund completed, of every merchant and environment. Found by skipping through the indexes one
 * day at a time (the first row at or after the next day's start), never by one query over the
 * whole history: each statement stays small, within the server's statement timeout, however many
 * payments there are.
 */
async function allDays(conn: Queryable): Promise<DirtyDay[]> {
  const scopes = await conn.query<{ merchant_id: string; environment: string }>(
    `SELECT m.id AS merchant_id, e.environment FROM merchants m CROSS JOIN (VALUES ('sandbox'), ('production')) AS e (environment)
     ORDER BY 1, 2`,
  );
  const out: DirtyDay[] = [];
  for (const scope of scopes) {
    const days = new Set<string>();
    for (const source of DAY_SOURCES) {
      let from = new Date(0);
      for (;;) {
        const [next] = await conn.query<{ at: Date }>(
          `SELECT ${source.column} AS at FROM ${source.table}
           WHERE merchant_id = $1 AND environment = $2 AND ${source.where} AND ${source.column} >= $3
           ORDER BY ${source.column} LIMIT 1`,
          [scope.merchant_id, scope.environment, from],
        );
        if (next === undefined) break;
        const day = next.at.toISOString().slice(0, 10);
        days.add(day);
        from = new Date(new Date(`${day}T00:00:00.000Z`).getTime() + DAY_MS);
      }
    }
    for (const day of [...days].sort()) out.push({ merchant_id: scope.merchant_id, environment: scope.environment, day });
  }
  return out;
}

/**
 * The days the events in (cursor − overlap, upper] touched: each payment's creation and success
 * day, and a refund's completion day (a refund's event leads to its payment too).
 */
async function daysTouchedBetween(conn: Queryable, cursor: Date | null, upper: Date | null): Promise<DirtyDay[]> {
  if (upper === null) return [];
  const from = cursor === null ? new Date(0) : new Date(cursor.getTime() - OVERVIEW_OVERLAP_MS);
  return conn.query<DirtyDay>(
    `SELECT DISTINCT p.merchant_id, p.environment, ${utcDay('d.at')} AS day
     FROM events e
     LEFT JOIN refunds r ON e.object_type = 'refund' AND r.id = e.object_id
     JOIN payments p ON p.id = coalesce(r.payment_id, e.object_id)
     CROSS JOIN LATERAL (VALUES (p.created_at), (p.succeeded_at), (CASE WHEN r.status = 'succeeded' THEN r.completed_at END)) AS d (at)
     WHERE e.created_at > $1 AND e.created_at <= $2 AND e.object_type IN ('payment', 'refund') AND d.at IS NOT NULL
     ORDER BY 1, 2, 3`,
    [from, upper],
  );
}

const BUCKET_OF_PAID = `CASE WHEN succeeded_at IS NULL THEN NULL
  ELSE width_bucket(extract(epoch FROM succeeded_at - created_at)::float8, ARRAY[${TTP_BUCKET_BOUNDS_S.join(',')}]::float8[]) END`;
const HISTOGRAM = `ARRAY[${Array.from({ length: TTP_BUCKETS }, (_, i) => `count(*) FILTER (WHERE p.b = ${i})`).join(', ')}]::integer[]`;
const STATUS_COUNTS = PAYMENT_STATUSES.map((s) => `count(*) FILTER (WHERE p.status = '${s}')`).join(', ');

/** Deletes one day's rows of both tables and inserts them again from the source rows: a recount. */
async function recountDay(tx: Queryable, day: DirtyDay): Promise<void> {
  const fromAt = new Date(`${day.day}T00:00:00.000Z`);
  const toAt = new Date(fromAt.getTime() + DAY_MS);
  const key = [day.merchant_id, day.environment, day.day];
  await tx.query(`DELETE FROM overview_cohort_days WHERE merchant_id = $1 AND environment = $2 AND day = $3::date`, key);
  await tx.query(`DELETE FROM overview_activity_days WHERE merchant_id = $1 AND environment = $2 AND day = $3::date`, key);
  await tx.query(
    `INSERT INTO overview_cohort_days (merchant_id, environment, day, currency, channel, connector, created_count,
       processing_count, pending_count, succeeded_count, failed_count, expired_count, canceled_count, reversed_count,
       paid_count, paid_minor, late_count, late_minor, ttp_buckets)
     SELECT $1, $2, $3::date, p.currency, coalesce(p.channel, ''), coalesce(a.connector, ''), count(*), ${STATUS_COUNTS},
       count(*) FILTER (WHERE p.succeeded_at IS NOT NULL),
       coalesce(sum(p.amount_minor) FILTER (WHERE p.succeeded_at IS NOT NULL), 0)::bigint,
       count(*) FILTER (WHERE p.late_payment IS NOT NULL),
       coalesce(sum((p.late_payment->>'amount_minor')::bigint) FILTER (WHERE p.late_payment IS NOT NULL), 0)::bigint,
       ${HISTOGRAM}
     FROM (SELECT id, currency, channel, status, amount_minor, succeeded_at, late_payment, ${BUCKET_OF_PAID} AS b
           FROM payments WHERE merchant_id = $1 AND environment = $2 AND created_at >= $4 AND created_at < $5) p
     LEFT JOIN LATERAL (SELECT connector FROM payment_attempts WHERE payment_id = p.id ORDER BY seq DESC LIMIT 1) a ON true
     GROUP BY p.currency, coalesce(p.channel, ''), coalesce(a.connector, '')`,
    [...key, fromAt, toAt],
  );
  await tx.query(
    `INSERT INTO overview_activity_days (merchant_id, environment, day, currency, paid_count, paid_minor, refunds_count, refunded_minor)
     SELECT $1, $2, $3::date, currency, sum(paid_count)::bigint, sum(paid_minor)::bigint, sum(refunds_count)::bigint,
       sum(refunded_minor)::bigint
     FROM (
       SELECT currency, count(*) AS paid_count, sum(amount_minor) AS paid_minor, 0 AS refunds_count, 0 AS refunded_minor
       FROM payments WHERE merchant_id = $1 AND environment = $2 AND succeeded_at >= $4 AND succeeded_at < $5
       GROUP BY currency
       UNION ALL
       SELECT currency, 0, 0, count(*), sum(amount_minor)
       FROM refunds WHERE merchant_id = $1 AND environment = $2 AND status = 'succeeded' AND completed_at >= $4 AND completed_at < $5
       GROUP BY currency
     ) x GROUP BY currency`,
    [...key, fromAt, toAt],
  );
}
