import type { Queryable, Store } from '../db/store.ts';
import type { Job } from './job-runner.ts';

/**
 * PGlite has no autovacuum. Without this job the embedded store's queue tables would keep every
 * dead row version their updates leave behind, and the planner would never get statistics for
 * any table (a claim then sorts every due delivery instead of reading the due index in order; a
 * GET by id walks the merchant's payments index instead of probing the primary key: measured in
 * docs/benchmarks.md, issue 27, third session). Every minute it:
 *
 *  - vacuums and analyses the tables that churn (CHURNING_TABLES);
 *  - analyses every other table that changed by more than PostgreSQL's own autoanalyze threshold
 *    since its last ANALYZE (50 rows + 10 % of its rows: `autovacuum_analyze_threshold` and
 *    `autovacuum_analyze_scale_factor`), read from the cumulative statistics. So a growing table
 *    is analysed at geometric intervals, as on PostgreSQL, and a table that does not change is
 *    never read again.
 *
 * PostgreSQL does the same by itself (autovacuum, tuned for the queue tables in migration 0010),
 * so this job runs on the embedded store only.
 */
export const CHURNING_TABLES = ['webhook_deliveries', 'webhook_fanout_queue', 'provider_notifications'] as const;

/** PostgreSQL's defaults for autoanalyze: a table is due after this many changed rows … */
const ANALYZE_THRESHOLD_ROWS = 50;
/** … plus this share of its rows. */
const ANALYZE_SCALE_FACTOR = 0.1;
/** The statistics target of those ANALYZEs (PostgreSQL's default is 100: 30,000 rows sampled). */
const ANALYZE_STATISTICS_TARGET = 10;

export function embeddedMaintenanceJob(deps: { store: Store }): Job {
  return {
    name: 'embedded-maintenance',
    intervalMs: 60_000,
    batchSize: Number.MAX_SAFE_INTEGER, // never a "full batch": one pass per tick
    async run() {
      for (const table of CHURNING_TABLES) await deps.store.exec(`VACUUM (ANALYZE) ${table}`);
      const analysed = await analyzeChangedTables(deps.store);
      return CHURNING_TABLES.length + analysed.length;
    },
  };
}

/**
 * ANALYZE of every table (of ours, other than the churning ones) whose rows changed past the
 * autoanalyze threshold since its last ANALYZE; returns their names. The counts come from the
 * cumulative statistics, which a backend publishes when idle (at most once a second): the flush
 * is asked for first, and a change it misses is seen on the next tick.
 */
async function analyzeChangedTables(q: Queryable): Promise<string[]> {
  await q.query('SELECT pg_stat_force_next_flush()');
  const rows = await q.query<{ relname: string }>(
    `SELECT relname FROM pg_stat_user_tables
     WHERE schemaname = current_schema() AND NOT (relname = ANY($1::text[]))
       AND n_mod_since_analyze > $2::float8 + $3::float8 * greatest(n_live_tup, 0)
     ORDER BY relname`,
    [[...CHURNING_TABLES], ANALYZE_THRESHOLD_ROWS, ANALYZE_SCALE_FACTOR],
  );
  const tables = rows.map((r) => r.relname);
  // With a sample of 3,000 rows instead of 30,000: PGlite analyses on the database thread, so every
  // request waits meanwhile (ANALYZE of 100,000 payments: 288 ms at the default target, 22 ms at
  // 10), and these statistics only have to pick indexes. `SET LOCAL` ends with the script's
  // implicit transaction.
  for (const table of tables) {
    await q.exec(`SET LOCAL default_statistics_target = ${ANALYZE_STATISTICS_TARGET}; ANALYZE "${table.replaceAll('"', '""')}"`);
  }
  return tables;
}
