import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { embeddedMaintenanceJob, maintainTables } from '../../src/jobs/embedded-maintenance.ts';
import { findPaymentStatement } from '../../src/modules/payments/payment-repo.ts';
import { insertPayments, type PlanNode, planOf, scansOf } from '../harness/query-plan.ts';
import { openTestStore, TEST_STORE, type TestStore } from '../harness/test-store.ts';

/**
 * PGlite has no autovacuum; the embedded maintenance job does what autovacuum would (its rule is
 * tested on its own in test/unit/maintenance-due.test.ts). Here, on a real embedded store:
 * a table never analysed has no statistics, and then a GET by id (`id = $1 AND merchant_id = $2
 * AND environment = $3`) is planned on the merchant's `payments_by_merchant_created` index — every
 * payment of the merchant walked for one row — instead of the primary key (measured on the
 * bench's ceiling store, 4,000 payments: 106 buffers and ~1 ms per GET; docs/benchmarks.md). The
 * job analyses a table that grew, vacuums one whose rows died, and leaves a quiet store alone:
 * every request waits while PGlite vacuums or analyses.
 */
const PAYMENTS = 2000;

/** The index each scan of payments in the plan uses (none: a sequential scan). */
const indexesOf = (plan: PlanNode) => scansOf(plan, 'payments').map((scan) => scan['Index Name'] ?? scan['Node Type']);

describe(
  'embedded maintenance',
  { skip: TEST_STORE === 'postgres' ? 'the job runs on the embedded store only (PostgreSQL has autovacuum)' : false },
  () => {
    let t: TestStore;
    before(async () => {
      t = await openTestStore();
    });
    after(() => t.close());

    it(`analyses a table that grew (${PAYMENTS} payments), vacuums it when its rows die, and leaves a quiet store alone`, async () => {
      const q = t.store;
      const job = embeddedMaintenanceJob({ store: q });
      // A fresh store: the migrations' few rows are below every threshold.
      assert.deepEqual(await maintainTables(q), { vacuumed: [], analysed: [] }, 'a fresh store needs nothing');

      await q.query(
        `INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_maint', 'Maint', '2024-01-01', now())`,
      );
      await insertPayments(q, 'mer_maint', { from: 1, to: PAYMENTS }, 'pending');
      const get = findPaymentStatement('mer_maint', 'sandbox', `pay_${'1000'.padStart(26, '0')}`);

      // The trap, reproduced: no statistics, the merchant's index.
      const before = indexesOf(await planOf(q, get));
      assert.deepEqual(before, ['payments_by_merchant_created'], `before the job: ${before.join(', ')}`);

      // 2,000 inserted rows: past the analyse threshold (50) and the insert-vacuum one (1,000).
      assert.equal(await job.run(), 1);
      const stats = async () =>
        (
          await q.query<{ last_vacuum: Date | null; last_analyze: Date | null; n_dead_tup: number }>(
            `SELECT last_vacuum, last_analyze, n_dead_tup::int AS n_dead_tup FROM pg_stat_user_tables
             WHERE relname = 'payments' AND schemaname = current_schema()`,
          )
        )[0];
      const first = await stats();
      assert.ok(first?.last_vacuum !== null && first?.last_analyze !== null, `payments maintained: ${JSON.stringify(first)}`);
      // Its smaller statistics target was for its own ANALYZEs only.
      const [target] = await q.query<{ default_statistics_target: string }>('SHOW default_statistics_target');
      assert.equal(target?.default_statistics_target, '100');
      const after = indexesOf(await planOf(q, get));
      assert.deepEqual(after, ['payments_pkey'], `after the job: ${after.join(', ')}`);

      // Nothing changed since: nothing is vacuumed or analysed again.
      assert.deepEqual(await maintainTables(q), { vacuumed: [], analysed: [] }, 'a quiet store is left alone');

      // Half the payments change: 1,000 dead rows (past 50 + 20 % of 2,000) and 1,000 changed
      // (past 50 + 10 %): vacuumed and analysed, and the dead rows are gone.
      await q.query(`UPDATE payments SET status = 'expired', closed_at = now(), version = version + 1 WHERE id <= $1`, [
        `pay_${String(PAYMENTS / 2).padStart(26, '0')}`,
      ]);
      assert.deepEqual(await maintainTables(q), { vacuumed: ['payments'], analysed: ['payments'] });
      assert.equal((await stats())?.n_dead_tup, 0);
    });
  },
);
