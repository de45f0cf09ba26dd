import type { Store } from '../db/store.ts';
import type { Job } from './job-runner.ts';

/**
 * PGlite has no autovacuum: without this job the embedded store's queue tables would keep every
 * dead row version their updates leave behind, and the planner would never get statistics for
 * them (a claim then sorts every due delivery instead of reading the due index in order). Every
 * minute it vacuums and analyses the tables that churn. PostgreSQL does the same by itself
 * (autovacuum, tuned for these tables in migration 0010), so this job runs on the embedded store
 * only.
 */
export const CHURNING_TABLES = ['webhook_deliveries', 'webhook_fanout_queue', 'provider_notifications'] as const;

export function embeddedMaintenanceJob(deps: { store: Store }): Job {
  return {
    name: 'embedded-maintenance',
    intervalMs: 60_000,
    batchSize: CHURNING_TABLES.length + 1, // never a "full batch": one pass per tick
    async run() {
      for (const table of CHURNING_TABLES) await deps.store.exec(`VACUUM (ANALYZE) ${table}`);
      return CHURNING_TABLES.length;
    },
  };
}
