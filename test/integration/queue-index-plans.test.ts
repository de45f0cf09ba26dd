import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { markPaymentPendingStatement } from '../../src/modules/payments/payment-repo.ts';
import { insertPayments, planOf, scansOf } from '../harness/query-plan.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/**
 * A partial index over the rows still in some state (the open payments, the due deliveries) is a
 * queue: it empties and fills again. When the statistics were taken while it was empty, PostgreSQL
 * keeps costing it at zero rows however far it has grown since, and a statement that names ONE
 * row by its primary key AND its status — which proves the index's predicate — is planned as a
 * scan of the whole queue filtered by id instead of one primary-key probe. Measured with 1,000,000
 * payments of history (all final at the preload's ANALYZE): the create's second transaction scanned
 * 2,000–5,000 open payments per create, and create fell to 0.39 of its ceiling (docs/benchmarks.md).
 * Migration 0022: every such index also requires one of its key columns to be non-null, which the
 * queue's own queries prove (a range on that column) and a statement by id does not.
 */
const OPEN = 400;

/**
 * Partial indexes on a status that are not queues, and why the trap cannot last for them (see
 * migration 0022; they are not rebuilt, which on a large store would take minutes of write lock).
 */
const NOT_QUEUES: Record<string, string> = {
  payments_payer_data_due: 'history: every final payment not erased yet',
  idempotency_keys_finished_expiry: 'history: every finished key until it expires',
  idempotency_keys_finished_by_resource: 'history: every finished key until it expires',
  refunds_by_merchant_completed: 'history: every succeeded refund',
  webhook_deliveries_completed: 'history: every completed delivery until retention removes it',
  idempotency_keys_by_resource:
    'started keys: bounded by the requests in flight (and leases awaiting the completer), so a wrong plan scans tens of rows',
};

describe('statements by primary key with a queue index that was empty at the last ANALYZE', () => {
  let t: TestStore;
  before(async () => {
    t = await openTestStore();
  });
  after(() => t.close());

  it(`the create's pending update probes payments_pkey with ${OPEN} open payments the statistics do not know`, async () => {
    const q = t.store;
    await q.query(`INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_plan', 'Plan', '2024-01-01', now())`);
    // History only: every payment final, so the open-payments index is empty when analyzed.
    await insertPayments(q, 'mer_plan', { from: 1, to: 200 }, 'canceled');
    await q.exec('VACUUM (ANALYZE) payments');
    // Then the day's traffic: payments waiting for their payer.
    await insertPayments(q, 'mer_plan', { from: 201, to: 200 + OPEN }, 'pending');
    await insertPayments(q, 'mer_plan', { from: 200 + OPEN + 1, to: 200 + OPEN + 1 }, 'processing');

    const id = `pay_${String(200 + OPEN + 1).padStart(26, '0')}`;
    const plan = await planOf(
      q,
      markPaymentPendingStatement({
        id,
        channel: 'bank',
        paymentMethod: null,
        instructions: null,
        expiresAt: new Date(),
        updatedAt: new Date(),
        version: 2,
        routing: null,
      }),
    );
    const scans = scansOf(plan, 'payments');
    assert.equal(scans.length, 1, `one scan of payments: ${JSON.stringify(plan)}`);
    assert.equal(scans[0]?.['Index Name'], 'payments_pkey', `planned as ${JSON.stringify(scans[0])}`);
  });

  it('every partial index whose predicate names a status also requires one of its key columns to be non-null', async () => {
    const rows = await t.store.query<{ name: string; predicate: string; keys: string[] | string }>(
      `SELECT c.relname AS name, pg_get_expr(i.indpred, i.indrelid) AS predicate,
              ARRAY(SELECT a.attname::text FROM unnest(i.indkey) AS k JOIN pg_attribute a
                      ON a.attrelid = i.indrelid AND a.attnum = k) AS keys
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND i.indpred IS NOT NULL`,
    );
    const withStatus = rows.filter((r) => /\bstatus\b/.test(r.predicate));
    assert.ok(withStatus.length >= 10, `the schema's partial indexes on a status were found (${withStatus.length})`);
    const queues = withStatus.filter((r) => !(r.name in NOT_QUEUES));
    const unguarded = queues.filter((r) => {
      const keys = typeof r.keys === 'string' ? r.keys.replace(/[{}]/g, '').split(',') : r.keys;
      return !keys.some((k) => r.predicate.includes(`(${k} IS NOT NULL)`));
    });
    assert.deepEqual(
      unguarded.map((r) => `${r.name}: ${r.predicate}`),
      [],
      'a partial index on a status must also say "<one of its key columns> IS NOT NULL"',
    );
  });
});
