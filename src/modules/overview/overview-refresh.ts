import type { Connection, Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { PacedSteps } from '../../lib/paced-steps.ts';
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

/**
 * A recount reads a day's rows in chunks of this many (by the time column's order), one statement
 * each, adding each chunk's counts to the day's rows (decision 0036). A statement then costs a
 * chunk, whatever the day's size: one statement over a day of 40,000 payments held one PostgreSQL
 * backend on a core for ~450 ms a minute, and on a two-core machine every request queued behind it
 * (docs/benchmarks.md, issue 27, nineteenth session).
 */
export const OVERVIEW_CHUNK_ROWS = 1_000;
/**
 * Between two of a run's chunk statements the run pauses at least as long as the last one took, and
 * never less than this: on PostgreSQL the job takes at most about half a core while it runs, and the
 * requests beside it keep the rest; on the embedded store the requests queued behind a chunk are
 * answered before the next one (no chunk is read inside a transaction, which would hold PGlite's
 * thread through the pause).
 */
export const OVERVIEW_MIN_PAUSE_MS = 10;

export interface OverviewRefreshDeps {
  store: Store;
  clock: Clock;
  /** Rows per chunk statement (OVERVIEW_CHUNK_ROWS): payments, refunds, or events. */
  chunkRows?: number;
  /** How the run pauses between chunk statements (tests record the pauses asked for). */
  pause?: (ms: number) => Promise<unknown>;
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

/** One run of the refresh: lock, find the dirty days, recount each (its rows replaced in one transaction), move the cursor. */
export async function refreshOverview(deps: OverviewRefreshDeps): Promise<RefreshOutcome> {
  return deps.store.withConnection(async (conn) => {
    const [lock] = await conn.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${OVERVIEW_REFRESH_LOCK}) AS got`);
    if (lock?.got !== true) return { ran: false, daysRecomputed: 0, rebuilt: false };
    try {
      return await refreshLocked(conn, deps.clock, chunking(deps));
    } finally {
      await conn.query(`SELECT pg_advisory_unlock(${OVERVIEW_REFRESH_LOCK})`);
    }
  });
}

/** How a run splits and paces its statements (decision 0036). */
interface Chunking {
  rows: number;
  /** Each chunk statement after the pause the last one calls for. */
  paced: PacedSteps;
}

function chunking(deps: OverviewRefreshDeps): Chunking {
  return { rows: deps.chunkRows ?? OVERVIEW_CHUNK_ROWS, paced: new PacedSteps(OVERVIEW_MIN_PAUSE_MS, deps.pause) };
}

/** Which rows a chunked scan reads: a table, its time column, and a filter over parameters $1…$n. */
interface ChunkSource {
  table: string;
  column: string;
  where: string;
  params: unknown[];
}

/**
 * The chunks of [from, to) by `column`: consecutive half-open ranges [lo, hi) of about `rows` rows
 * each, every row in exactly one. A boundary is read as a Date, cut to the millisecond: the rows
 * between the cut and the exact boundary fall in the next chunk, and the ranges still cover
 * [from, to) once. Where more than `rows` rows share one millisecond, that millisecond is one chunk.
 */
async function* chunksOf(q: Queryable, source: ChunkSource, from: Date, to: Date, rows: number): AsyncGenerator<[Date, Date]> {
  const n = source.params.length;
  let lo = from;
  while (lo < to) {
    const [next] = await q.query<{ at: Date }>(
      `SELECT ${source.column} AS at FROM ${source.table}
       WHERE ${source.where} AND ${source.column} >= $${n + 1} AND ${source.column} < $${n + 2}
       ORDER BY ${source.column} OFFSET ${rows} LIMIT 1`,
      [...source.params, lo, to],
    );
    let hi = next === undefined ? to : next.at;
    if (hi <= lo) hi = new Date(lo.getTime() + 1);
    yield [lo, hi];
    lo = hi;
  }
}

async function refreshLocked(conn: Connection, clock: Clock, chunks: Chunking): Promise<RefreshOutcome> {
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
  const dirty = rebuilt ? await allDays(conn) : await daysTouchedBetween(conn, state.cursor_at, upper, chunks);
  for (const day of dirty) await recountDay(conn, day, chunks);
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
 * The days the events in [cursor − overlap, upper] touched: each payment's creation and success
 * day, and a refund's completion day (a refund's event leads to its payment too). Read in chunks of
 * events (decision 0036); an event read twice (the overlap, or written a moment after `upper` was
 * read) only recounts its day again.
 */
async function daysTouchedBetween(
  conn: Queryable,
  cursor: Date | null,
  upper: Date | null,
  chunks: Chunking,
): Promise<DirtyDay[]> {
  if (upper === null) return [];
  const from = cursor === null ? new Date(0) : new Date(cursor.getTime() - OVERVIEW_OVERLAP_MS);
  // `upper` is read to the millisecond; the event it is (microseconds further) is below the next one.
  const to = new Date(upper.getTime() + 1);
  const days = new Map<string, DirtyDay>();
  const events: ChunkSource = { table: 'events', column: 'created_at', where: 'true', params: [] };
  for await (const [lo, hi] of chunksOf(conn, events, from, to, chunks.rows)) {
    const touched = await chunks.paced.step(() =>
      conn.query<DirtyDay>(
        // Each touched payment once, then its row by primary key: a LATERAL with LIMIT 1 is probed
        // per payment, where a plain join was planned as a hash join over every payment (a sequential
        // scan of the table per chunk). A probe costs ~10 µs in a bench run (5,000 events: 53–56 ms),
        // hence chunks of 1,000 events.
        `SELECT DISTINCT p.merchant_id, p.environment, ${utcDay('d.at')} AS day
         FROM (SELECT DISTINCT coalesce(r.payment_id, e.object_id) AS payment_id,
                 CASE WHEN r.status = 'succeeded' THEN r.completed_at END AS refunded_at
               FROM events e
               LEFT JOIN LATERAL (SELECT payment_id, status, completed_at FROM refunds
                                  WHERE e.object_type = 'refund' AND id = e.object_id LIMIT 1) r ON true
               WHERE e.created_at >= $1 AND e.created_at < $2 AND e.object_type IN ('payment', 'refund')) t
         CROSS JOIN LATERAL (SELECT merchant_id, environment, created_at, succeeded_at FROM payments WHERE id = t.payment_id LIMIT 1) p
         CROSS JOIN LATERAL (VALUES (p.created_at), (p.succeeded_at), (t.refunded_at)) AS d (at)
         WHERE d.at IS NOT NULL`,
        [lo, hi],
      ),
    );
    for (const d of touched) days.set(`${d.merchant_id} ${d.environment} ${d.day}`, d);
  }
  return [...days].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, d]) => d);
}

const BUCKET_OF_PAID = `CASE WHEN succeeded_at IS NULL THEN NULL
  ELSE width_bucket(extract(epoch FROM succeeded_at - created_at)::float8, ARRAY[${TTP_BUCKET_BOUNDS_S.join(',')}]::float8[]) END`;
const HISTOGRAM = `ARRAY[${Array.from({ length: TTP_BUCKETS }, (_, i) => `count(*) FILTER (WHERE p.b = ${i})`).join(', ')}]::integer[]`;
const STATUS_COUNTS = PAYMENT_STATUSES.map((s) => `count(*) FILTER (WHERE p.status = '${s}') AS ${s}_count`).join(', ');

const KEY_COLUMNS = ['merchant_id', 'environment', 'day'] as const;
const COHORT_GROUP = ['currency', 'channel', 'connector'] as const;
const COHORT_COUNTS = [
  'created_count',
  ...PAYMENT_STATUSES.map((st) => `${st}_count`),
  'paid_count',
  'paid_minor',
  'late_count',
  'late_minor',
] as const;
const ACTIVITY_COUNTS = ['paid_count', 'paid_minor', 'refunds_count', 'refunded_minor'] as const;

/** One row of a day's aggregates as it is being added up: its group, its counts (int8), its histogram. */
type Tally = Record<string, unknown>;

/** What one table's rows are added up by: their group, their bigint counts, their arrays (element by element). */
interface TallyShape {
  group: readonly string[];
  counts: readonly string[];
  arrays: readonly string[];
}
const COHORT: TallyShape = { group: COHORT_GROUP, counts: COHORT_COUNTS, arrays: ['ttp_buckets'] };
const ACTIVITY: TallyShape = { group: ['currency'], counts: ACTIVITY_COUNTS, arrays: [] };

/** Adds a chunk's grouped counts into the day's rows so far: counts exact (bigint), arrays element by element. */
function addChunk(day: Map<string, Tally>, rows: readonly Tally[], shape: TallyShape): void {
  for (const row of rows) {
    const key = shape.group.map((g) => String(row[g])).join('\u0000');
    const into = day.get(key);
    if (into === undefined) {
      day.set(key, { ...row });
      continue;
    }
    for (const c of shape.counts) into[c] = (into[c] as bigint) + (row[c] as bigint);
    for (const a of shape.arrays) {
      const add = row[a] as number[];
      into[a] = (into[a] as number[]).map((n, i) => n + (add[i] ?? 0));
    }
  }
}

/** INSERT of one row into `table`: the day's key, then `columns` of `row`. */
async function insertRow(tx: Queryable, table: string, key: unknown[], columns: readonly string[], row: Tally): Promise<void> {
  const names = [...KEY_COLUMNS, ...columns];
  const params = names.map((_, i) => (i === 2 ? `$${i + 1}::date` : `$${i + 1}`));
  await tx.query(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${params.join(', ')})`, [
    ...key,
    ...columns.map((c) => row[c]),
  ]);
}

/**
 * Counts one day again from the source rows and replaces its rows in both tables: a recount
 * (decision 0036). Each source is read in chunks, one statement each and outside any transaction
 * (every row is in exactly one chunk, so each payment and refund is counted once, as it was when its
 * chunk was read; a change after that is an event the next run sees); the chunks' counts are added
 * up here, and the day's rows are replaced in one short transaction: the page sees the old day or
 * the new one.
 */
async function recountDay(conn: Connection, day: DirtyDay, chunks: Chunking): Promise<void> {
  const fromAt = new Date(`${day.day}T00:00:00.000Z`);
  const toAt = new Date(fromAt.getTime() + DAY_MS);
  const key = [day.merchant_id, day.environment, day.day];
  const scope = (source: (typeof DAY_SOURCES)[number]): ChunkSource => ({
    table: source.table,
    column: source.column,
    where: `merchant_id = $1 AND environment = $2 AND ${source.where}`,
    params: [day.merchant_id, day.environment],
  });
  const [created, paid, refunded] = DAY_SOURCES;
  /** Each chunk of `source` read by `sql` ($1, $2 the scope, $3, $4 the chunk's range), added into `into`. */
  const tally = async (source: (typeof DAY_SOURCES)[number], sql: string, into: Map<string, Tally>, shape: TallyShape) => {
    for await (const [lo, hi] of chunksOf(conn, scope(source), fromAt, toAt, chunks.rows)) {
      const rows = await chunks.paced.step(() => conn.query<Tally>(sql, [day.merchant_id, day.environment, lo, hi]));
      addChunk(into, rows, shape);
    }
  };
  const cohort = new Map<string, Tally>();
  await tally(
    created,
    `SELECT p.currency, coalesce(p.channel, '') AS channel, coalesce(a.connector, '') AS connector,
       count(*) AS created_count, ${STATUS_COUNTS},
       count(*) FILTER (WHERE p.succeeded_at IS NOT NULL) AS paid_count,
       coalesce(sum(p.amount_minor) FILTER (WHERE p.succeeded_at IS NOT NULL), 0)::bigint AS paid_minor,
       count(*) FILTER (WHERE p.late_payment IS NOT NULL) AS late_count,
       coalesce(sum((p.late_payment->>'amount_minor')::bigint) FILTER (WHERE p.late_payment IS NOT NULL), 0)::bigint AS late_minor,
       ${HISTOGRAM} AS ttp_buckets
     FROM (SELECT id, currency, channel, status, amount_minor, succeeded_at, late_payment, ${BUCKET_OF_PAID} AS b
           FROM payments WHERE merchant_id = $1 AND environment = $2 AND created_at >= $3 AND created_at < $4) p
     LEFT JOIN LATERAL (SELECT connector FROM payment_attempts WHERE payment_id = p.id ORDER BY seq DESC LIMIT 1) a ON true
     GROUP BY p.currency, coalesce(p.channel, ''), coalesce(a.connector, '')`,
    cohort,
    COHORT,
  );
  const activity = new Map<string, Tally>();
  await tally(
    paid,
    `SELECT currency, count(*) AS paid_count, sum(amount_minor)::bigint AS paid_minor, 0::bigint AS refunds_count,
       0::bigint AS refunded_minor
     FROM payments WHERE merchant_id = $1 AND environment = $2 AND succeeded_at >= $3 AND succeeded_at < $4
     GROUP BY currency`,
    activity,
    ACTIVITY,
  );
  await tally(
    refunded,
    `SELECT currency, 0::bigint AS paid_count, 0::bigint AS paid_minor, count(*) AS refunds_count,
       sum(amount_minor)::bigint AS refunded_minor
     FROM refunds WHERE merchant_id = $1 AND environment = $2 AND status = 'succeeded' AND completed_at >= $3 AND completed_at < $4
     GROUP BY currency`,
    activity,
    ACTIVITY,
  );
  await conn.transaction(async (tx) => {
    await tx.query(`DELETE FROM overview_cohort_days WHERE merchant_id = $1 AND environment = $2 AND day = $3::date`, key);
    await tx.query(`DELETE FROM overview_activity_days WHERE merchant_id = $1 AND environment = $2 AND day = $3::date`, key);
    for (const row of cohort.values()) {
      await insertRow(tx, 'overview_cohort_days', key, [...COHORT.group, ...COHORT.counts, ...COHORT.arrays], row);
    }
    for (const row of activity.values()) {
      await insertRow(tx, 'overview_activity_days', key, [...ACTIVITY.group, ...ACTIVITY.counts], row);
    }
  });
}
