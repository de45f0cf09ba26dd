import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHURNING_TABLES, embeddedMaintenanceJob } from '../../src/jobs/embedded-maintenance.ts';
import { findPaymentStatement } from '../../src/modules/payments/payment-repo.ts';
import { insertPayments, type PlanNode, planOf, scansOf } from '../harness/query-plan.ts';
import { openTestStore, TEST_STORE, type TestStore } from '../harness/test-store.ts';

/**
 * PGlite has no autovacuum: a table nobody analyses has no statistics, and then a GET by id
 * (`id = $1 AND merchant_id = $2 AND environment = $3`) is planned on the merchant's
 * `payments_by_merchant_created` index — every payment of the merchant walked for one row —
 * instead of the primary key. Measured on the bench's ceiling store (4,000 payments, never
 * analysed): 106 buffers and ~1 ms per GET, against a primary-key probe after ANALYZE; the GET
 * ceiling then ran at 0.56–0.65 of the service it was meant to bound (docs/benchmarks.md).
 * The embedded maintenance job analyses what changed, as PostgreSQL's autovacuum does there.
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

    it(`analyses a table that grew (${PAYMENTS} payments), so a GET by id probes payments_pkey; then leaves it alone`, async () => {
      const q = t.store;
      await q.query(
        `INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_maint', 'Maint', '2024-01-01', now())`,
      );
      await insertPayments(q, 'mer_maint', { from: 1, to: PAYMENTS }, 'pending');
      const get = findPaymentStatement('mer_maint', 'sandbox', `pay_${'1000'.padStart(26, '0')}`);

      // The trap, reproduced: no statistics, the merchant's index.
      const before = indexesOf(await planOf(q, get));
      assert.deepEqual(before, ['payments_by_merchant_created'], `before the job: ${before.join(', ')}`);

      const job = embeddedMaintenanceJob({ store: q });
      const handled = await job.run();
      const analysed = await q.query<{ relname: string }>(
        `SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL AND schemaname = current_schema() ORDER BY relname`,
      );
      const names = analysed.map((r) => r.relname);
      assert.ok(names.includes('payments'), `analysed: ${names.join(', ')}`);
      for (const churning of CHURNING_TABLES) assert.ok(names.includes(churning), `${churning} not vacuumed and analysed`);
      assert.ok(handled > CHURNING_TABLES.length, `handled ${handled}`);
      // Its smaller statistics target was for its own ANALYZEs only.
      const [target] = await q.query<{ default_statistics_target: string }>('SHOW default_statistics_target');
      assert.equal(target?.default_statistics_target, '100');

      const after = indexesOf(await planOf(q, get));
      assert.deepEqual(after, ['payments_pkey'], `after the job: ${after.join(', ')}`);

      // Nothing changed since: the next tick analyses the churning tables only.
      assert.equal(await job.run(), CHURNING_TABLES.length);
    });
  },
);
