import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { canTransition, PAYMENT_STATUSES } from '../../src/modules/payments/payment-states.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/** The transition table in code and its mirror in the database must agree, pair by pair. */
describe('payment transition table: code and database agree', () => {
  let s: TestStore;
  before(async () => {
    s = await openTestStore();
  });
  after(() => s.close());

  it('payment_transition_allowed() equals canTransition() for every pair of statuses', async () => {
    const rows = await s.store.query<{ from_status: string; to_status: string; allowed: boolean }>(
      `SELECT f AS from_status, t AS to_status, payment_transition_allowed(f, t) AS allowed
       FROM unnest($1::text[]) AS f CROSS JOIN unnest($1::text[]) AS t`,
      [PAYMENT_STATUSES],
    );
    assert.equal(rows.length, PAYMENT_STATUSES.length ** 2);
    let allowed = 0;
    for (const r of rows) {
      const inCode = canTransition(r.from_status as never, r.to_status as never);
      assert.equal(r.allowed, inCode, `${r.from_status} → ${r.to_status}`);
      if (inCode) allowed += 1;
    }
    assert.equal(allowed, 9, 'the table has nine transitions');
  });

  it('the status CHECK accepts exactly the statuses in code', async () => {
    const rows = await s.store.query<{ def: string }>(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid = 'payments'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%status%processing%'`,
    );
    const def = rows[0]?.def ?? '';
    for (const status of PAYMENT_STATUSES) assert.ok(def.includes(`'${status}'`), `${status} in the CHECK`);
    assert.equal((def.match(/'[a-z]+'/g) ?? []).length, PAYMENT_STATUSES.length);
  });

  it('the database refuses a transition the table does not have', async () => {
    const now = new Date('2026-11-21T10:00:00Z');
    await s.store.query(`INSERT INTO merchants (id, name, api_version, created_at) VALUES ('mer_tt', 'TT', '2026-11-01', $1)`, [
      now,
    ]);
    await s.store.query(
      `INSERT INTO payments (id, merchant_id, environment, status, amount_minor, currency, reference_no, channel_requested,
         api_version, version, expires_at, created_at, updated_at)
       VALUES ('pay_tt', 'mer_tt', 'sandbox', 'failed', 100, 'IDR', 'tt-1', 'auto', '2026-11-01', 1, $1, $1, $1)`,
      [now],
    );
    await assert.rejects(
      s.store.query("UPDATE payments SET status = 'succeeded', version = 2 WHERE id = 'pay_tt'"),
      /transition failed -> succeeded not allowed/,
    );
    await s.store.query("UPDATE payments SET status = 'failed', version = 2 WHERE id = 'pay_tt'");
  });
});
