import type { Queryable, Store } from '../db/store.ts';
import type { Logger } from '../lib/logger.ts';
import { PacedSteps } from '../lib/paced-steps.ts';
import type { Job } from './job-runner.ts';
import { quietUntil } from './quiet-store.ts';

/**
 * PGlite has no autovacuum. This job is the embedded store's autovacuum: every minute it asks the
 * cumulative statistics which of our tables PostgreSQL's autovacuum would vacuum or analyse now,
 * by autovacuum's own rule and settings (`relation_needs_vacanalyze` in PostgreSQL's
 * autovacuum.c; the per-table settings of migration 0010 for the queue tables included), and does
 * exactly that — and, as autovacuum does, vacuums the system catalogs before their transaction ids
 * get old enough to wrap around. Without it the queue tables would keep every dead row version their updates leave
 * behind, and the planner would have no statistics for any table (a claim then sorts every due
 * delivery instead of reading the due index in order; a GET by id walks the merchant's payments
 * index instead of probing the primary key: docs/benchmarks.md, issue 27, third session).
 *
 * PGlite runs on one database thread and every request waits while it vacuums or analyses, so a
 * table is touched only when its changes call for it (a quiet store costs one statistics read a
 * minute; before, the queue tables were vacuumed and analysed every minute whatever happened:
 * 320 ms a minute with 60,000 deliveries kept), and ANALYZE samples 3,000 rows instead of 30,000
 * (statistics that pick indexes need no more: ANALYZE of 60,000 deliveries 247 ms at the default
 * target, 29 ms at 10; docs/benchmarks.md, issue 27, fourth session).
 *
 * PostgreSQL does all this itself, so the job runs on the embedded store only.
 */

/** The statistics target of the job's ANALYZEs (PostgreSQL's default is 100: 30,000 rows sampled). */
const ANALYZE_STATISTICS_TARGET = 10;

/**
 * The least pause between two of a pass's statements (decision 0032). The pass waits after each
 * statement at least as long as the statement took, and never less than this: the requests that
 * queued behind a VACUUM or an ANALYZE are answered before the next one starts, so a pass delays a
 * request by one statement at most, and takes at most half of the database thread while it runs.
 */
export const MAINTENANCE_MIN_PAUSE_MS = 50;

/**
 * Decision 0034: before each statement (after the pause above) the pass waits until the store has
 * had no call in flight for STORE_QUIET_MS (src/jobs/quiet-store.ts), so that on a busy store it runs
 * in a quiet moment instead of stalling the requests — but for at most this long from the start of
 * the pass: then the rest of the pass runs without waiting for quiet (statistics and dead-row
 * cleanup are not optional on a store that is never quiet).
 */
export const MAINTENANCE_MAX_WAIT_MS = 5 * 60_000;

export interface MaintenanceOptions {
  /** How the pass waits between statements (tests record the pauses it asks for). */
  pause?: (ms: number) => Promise<unknown>;
  /** Told of each statement of the pass when it ends: what it was, when it started, how long it held PGlite. */
  onStatement?: (statement: MaintenanceStatement) => void;
  /**
   * Waits for a quiet store until the deadline, true when it was quiet (`quietUntil`,
   * src/jobs/quiet-store.ts); absent, the pass does not wait for quiet.
   */
  quietUntil?: (deadline: number) => Promise<boolean>;
  /** How long to wait for quiet at most, from the start of the pass (MAINTENANCE_MAX_WAIT_MS). */
  maxWaitMs?: number;
}

/** One statement of a pass: `read` (the statistics), `vacuum <table>` or `analyze <table>`. */
export interface MaintenanceStatement {
  what: string;
  /** Epoch milliseconds. */
  startedAt: number;
  ms: number;
  /** How long it waited for a quiet store before it started (after the pause). */
  waitedMs: number;
  /** True when it ran without a quiet moment: the pass's wait for quiet had run out. */
  forced: boolean;
}

/**
 * One table's numbers and settings as autovacuum reads them (a setting is the table's own, from its
 * reloptions, else the server's); ACTIVITY_SQL returns exactly this shape.
 */
export interface TableActivity extends Record<string, unknown> {
  /** pg_class.reltuples: -1 for a table never vacuumed or analysed. */
  reltuples: number;
  deadTuples: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
  /** age(relfrozenxid): transactions since the table's oldest unfrozen row. */
  xidAge: number;
  /** mxid_age(relminmxid): the same for multixacts (row locks shared by several transactions). */
  multixactAge: number;
  enabled: boolean;
  vacuumThreshold: number;
  vacuumScaleFactor: number;
  /** PostgreSQL 18: the dead-row threshold never exceeds this (-1: no cap). */
  vacuumMaxThreshold: number;
  /** -1: inserts never cause a vacuum. */
  insertThreshold: number;
  insertScaleFactor: number;
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  freezeMaxAge: number;
  multixactFreezeMaxAge: number;
}

/**
 * Autovacuum's decision for one table (PostgreSQL 13 and later): vacuum when the dead rows or the
 * rows inserted since the last vacuum pass their thresholds, or — whatever the settings say — when
 * the oldest unfrozen row is older than `autovacuum_freeze_max_age` (or its multixact twin), so
 * that transaction ids never wrap around (PostgreSQL stops accepting writes before they do);
 * analyse when the rows changed since the last ANALYZE pass theirs. A threshold is `base + scale
 * factor × rows`; the dead-row one is capped by `autovacuum_vacuum_max_threshold` (PostgreSQL 18).
 */
export function maintenanceDue(t: TableActivity): { vacuum: boolean; analyze: boolean } {
  const rows = Math.max(t.reltuples, 0);
  const wraparound = t.xidAge > t.freezeMaxAge || t.multixactAge > t.multixactFreezeMaxAge;
  const scaled = t.vacuumThreshold + t.vacuumScaleFactor * rows;
  const deadThreshold = t.vacuumMaxThreshold >= 0 ? Math.min(scaled, t.vacuumMaxThreshold) : scaled;
  if (!t.enabled) return { vacuum: wraparound, analyze: false };
  const vacuum =
    wraparound ||
    t.deadTuples > deadThreshold ||
    (t.insertThreshold >= 0 && t.insertedSinceVacuum > t.insertThreshold + t.insertScaleFactor * rows);
  return { vacuum, analyze: t.modifiedSinceAnalyze > t.analyzeThreshold + t.analyzeScaleFactor * rows };
}

/** A table's own autovacuum setting (its reloptions), else the server's. */
const setting = (name: string, otherwise = `current_setting('${name}')`) =>
  `coalesce((SELECT split_part(o, '=', 2) FROM unnest(c.reloptions) AS o WHERE split_part(o, '=', 1) = '${name}'),
            ${otherwise})`;

/**
 * Our tables, and the system catalogs of our database by age only: autovacuum also vacuums a
 * catalog before its transaction ids get old enough to wrap around (its rows, written by initdb
 * and the migrations, are never frozen otherwise), and the catalogs' other churn is the
 * migrations'. So a catalog reads as a table whose autovacuum is disabled, for which the rule is
 * exactly that. `name` is what the pass reports (catalogs as `pg_catalog.name`), `target` the
 * quoted name its statements use.
 */
const ACTIVITY_SQL = `SELECT
    CASE WHEN s.schemaname = 'pg_catalog' THEN 'pg_catalog.' || s.relname ELSE s.relname END AS name,
    format('%I.%I', s.schemaname, s.relname) AS target,
    c.reltuples::float8 AS reltuples, s.n_dead_tup::float8 AS "deadTuples",
    s.n_mod_since_analyze::float8 AS "modifiedSinceAnalyze", s.n_ins_since_vacuum::float8 AS "insertedSinceVacuum",
    age(c.relfrozenxid)::float8 AS "xidAge", mxid_age(c.relminmxid)::float8 AS "multixactAge",
    s.schemaname <> 'pg_catalog' AND ${setting('autovacuum_enabled', "'true'")}::boolean AS enabled,
    ${setting('autovacuum_vacuum_threshold')}::float8 AS "vacuumThreshold",
    ${setting('autovacuum_vacuum_scale_factor')}::float8 AS "vacuumScaleFactor",
    ${setting('autovacuum_vacuum_max_threshold', "coalesce(current_setting('autovacuum_vacuum_max_threshold', true), '-1')")}::float8 AS "vacuumMaxThreshold",
    ${setting('autovacuum_vacuum_insert_threshold')}::float8 AS "insertThreshold",
    ${setting('autovacuum_vacuum_insert_scale_factor')}::float8 AS "insertScaleFactor",
    ${setting('autovacuum_analyze_threshold')}::float8 AS "analyzeThreshold",
    ${setting('autovacuum_analyze_scale_factor')}::float8 AS "analyzeScaleFactor",
    ${setting('autovacuum_freeze_max_age')}::float8 AS "freezeMaxAge",
    ${setting('autovacuum_multixact_freeze_max_age')}::float8 AS "multixactFreezeMaxAge"
  FROM pg_stat_all_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname IN (current_schema(), 'pg_catalog')
  ORDER BY s.schemaname <> current_schema(), s.relname`;

/** What one pass did: the tables vacuumed (catalogs as `pg_catalog.name`) and the tables analysed. */
export interface MaintenancePass {
  vacuumed: string[];
  analysed: string[];
}

/**
 * One pass: reads every table's activity (after asking the backend to publish its statistics,
 * which it otherwise does when idle, at most once a second: a change it misses is seen next
 * pass), then vacuums and analyses what is due, the vacuum first (it refreshes the row count the
 * next thresholds scale with). The system catalogs are read and vacuumed by age only (ACTIVITY_SQL).
 * Between two statements the pass pauses (MAINTENANCE_MIN_PAUSE_MS): every request waits while
 * PGlite vacuums or analyses, and statements run back to back held requests for the whole pass.
 * Given `quietUntil`, each statement also waits for a quiet moment of the store, for at most
 * `maxWaitMs` from the start of the pass (decision 0034).
 */
export async function maintainTables(q: Queryable, options: MaintenanceOptions = {}): Promise<MaintenancePass> {
  const deadline = performance.now() + (options.maxWaitMs ?? MAINTENANCE_MAX_WAIT_MS);
  const paced = new PacedSteps(MAINTENANCE_MIN_PAUSE_MS, options.pause);
  /**
   * One statement of the pass: after a pause as long as the one before it took (decision 0032),
   * and in a quiet moment of the store while the pass's wait for one lasts (decision 0034).
   */
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    await paced.paceNext();
    const waitStarted = performance.now();
    const quiet = options.quietUntil === undefined || (await options.quietUntil(deadline));
    const startedAt = Date.now();
    const waitedMs = performance.now() - waitStarted;
    return paced.timed(run, (ms) => options.onStatement?.({ what, startedAt, ms, waitedMs, forced: !quiet }));
  };
  const rows = await step('read', async () => {
    await q.query('SELECT pg_stat_force_next_flush()');
    return q.query<TableActivity & { name: string; target: string }>(ACTIVITY_SQL);
  });
  const pass: MaintenancePass = { vacuumed: [], analysed: [] };
  for (const r of rows) {
    const due = maintenanceDue(r);
    if (due.vacuum) {
      await step(`vacuum ${r.name}`, () => q.exec(`VACUUM ${r.target}`));
      pass.vacuumed.push(r.name);
    }
    if (due.analyze) {
      // `SET LOCAL` ends with the script's implicit transaction (VACUUM cannot run in one: it is
      // a statement of its own above).
      await step(`analyze ${r.name}`, () =>
        q.exec(`SET LOCAL default_statistics_target = ${ANALYZE_STATISTICS_TARGET}; ANALYZE ${r.target}`),
      );
      pass.analysed.push(r.name);
    }
  }
  return pass;
}

/**
 * The job: one pass a minute, each statement in a quiet moment of the store while the pass's wait
 * for one lasts (decision 0034). A pass that vacuumed or analysed something is logged (info) with
 * each statement's start, how long it waited for quiet and how long it held PGlite — every request
 * waited meanwhile — and whether the wait ran out (`forced`), so that a slow answer can be matched
 * with the pass that held it (bench/lib/tail.ts reads these lines).
 */
export function embeddedMaintenanceJob(deps: { store: Store; log?: Logger; maxWaitMs?: number }): Job {
  return {
    name: 'embedded-maintenance',
    intervalMs: 60_000,
    batchSize: Number.MAX_SAFE_INTEGER, // never a "full batch": one pass per tick
    async run() {
      const statements: MaintenanceStatement[] = [];
      const store = deps.store;
      const pass = await maintainTables(store, {
        onStatement: (s) => statements.push(s),
        quietUntil: (deadline) => quietUntil(store, deadline),
        ...(deps.maxWaitMs === undefined ? {} : { maxWaitMs: deps.maxWaitMs }),
      });
      const touched = new Set([...pass.vacuumed, ...pass.analysed]).size;
      if (touched > 0) {
        deps.log?.info(
          {
            maintenance: statements.map((s) => ({
              what: s.what,
              started_at: s.startedAt,
              ms: Math.round(s.ms * 10) / 10,
              waited_ms: Math.round(s.waitedMs),
            })),
            held_ms: Math.round(statements.reduce((sum, s) => sum + s.ms, 0)),
            forced: statements.some((s) => s.forced),
          },
          MAINTENANCE_PASS_MESSAGE,
        );
      }
      return touched;
    },
  };
}

/** The message of a pass's log line (bench/lib/tail.ts finds the lines by it). */
export const MAINTENANCE_PASS_MESSAGE = 'embedded maintenance pass';
