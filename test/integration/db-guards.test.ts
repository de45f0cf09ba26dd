import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadMigrations, migrate, MigrationError } from '../../src/db/migrate.ts';
import { canTransition, PAYMENT_STATUSES } from '../../src/modules/payments/payment-states.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, TEST_STORE } from '../harness/test-store.ts';

describe(`database guards (${TEST_STORE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const q = <T extends Record<string, unknown>>(sql: string, params: unknown[] = []) => t.testStore.store.query<T>(sql, params);

  it('the transition table in code is exactly the one in the database', async () => {
    for (const from of PAYMENT_STATUSES) {
      for (const to of PAYMENT_STATUSES) {
        const [row] = await q<{ allowed: boolean }>('SELECT payment_transition_allowed($1, $2) AS allowed', [from, to]);
        assert.equal(row?.allowed, canTransition(from, to), `${from} → ${to}`);
      }
    }
  });

  async function pendingPayment(): Promise<string> {
    return String(json(await t.call('POST', '/payment/create', { body: quickStart() }))['id']);
  }

  it('refuses a transition the table does not allow', async () => {
    const id = await pendingPayment();
    await assert.rejects(
      q("UPDATE payments SET status = 'reversed', version = version + 1 WHERE id = $1", [id]),
      /transition pending -> reversed not allowed/,
    );
    await assert.rejects(
      q("UPDATE payments SET status = 'processing', version = version + 1 WHERE id = $1", [id]),
      /not allowed/,
    );
    await q("UPDATE payments SET status = 'expired', version = version + 1 WHERE id = $1", [id]);
    await assert.rejects(
      q("UPDATE payments SET status = 'pending', version = version + 1 WHERE id = $1", [id]),
      /expired -> pending/,
    );
  });

  it('refuses an update that does not bump the version by exactly one', async () => {
    const id = await pendingPayment();
    await assert.rejects(q("UPDATE payments SET description = 'x' WHERE id = $1", [id]), /version must go/);
    await assert.rejects(
      q("UPDATE payments SET description = 'x', version = version + 2 WHERE id = $1", [id]),
      /version must go/,
    );
    await q("UPDATE payments SET description = 'x', version = version + 1 WHERE id = $1", [id]);
  });

  it('refuses changes to amount, currency, reference_no, tenant or creation time', async () => {
    const id = await pendingPayment();
    for (const change of [
      'amount_minor = amount_minor + 1',
      "currency = 'PHP'",
      "reference_no = 'other'",
      "merchant_id = 'mer_x'",
      "environment = 'production'",
      "created_at = created_at - interval '1 day'",
    ]) {
      await assert.rejects(
        q(`UPDATE payments SET ${change}, version = version + 1 WHERE id = $1`, [id]),
        /immutable|violates|foreign key/,
        change,
      );
    }
  });

  it('refuses non-positive amounts, refunds above the amount and pending payments without instructions', async () => {
    const id = await pendingPayment();
    await assert.rejects(
      q('UPDATE payments SET amount_refunded_minor = amount_minor + 1, version = version + 1 WHERE id = $1', [id]),
      /check/i,
    );
    await assert.rejects(q('UPDATE payments SET instructions = NULL, version = version + 1 WHERE id = $1', [id]), /check/i);
  });

  it('events are immutable', async () => {
    const id = await pendingPayment();
    await assert.rejects(q("UPDATE events SET type = 'payment.succeeded' WHERE object_id = $1", [id]), /immutable/);
  });
});

describe(`migrations (${TEST_STORE})`, () => {
  it('are applied once, even by concurrent runners, and re-running changes nothing', async () => {
    const ts = await openTestStore();
    try {
      const again = await Promise.all([migrate(ts.store), migrate(ts.store)]);
      assert.deepEqual(again, [{ applied: [] }, { applied: [] }]);
      const rows = await ts.store.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((r) => r.version),
        loadMigrations().map((m) => m.version),
      );
    } finally {
      await ts.close();
    }
  });

  it('refuse to run when an applied migration was edited', async () => {
    const ts = await openTestStore();
    try {
      await ts.store.query("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1");
      await assert.rejects(
        migrate(ts.store),
        (e: unknown) => e instanceof MigrationError && /changed after it was applied/.test(e.message),
      );
    } finally {
      await ts.close();
    }
  });

  it('refuse a database that has a migration this build does not know', async () => {
    const ts = await openTestStore();
    try {
      await ts.store.query("INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, '9999_future', 'x')");
      await assert.rejects(migrate(ts.store), /does not know/);
    } finally {
      await ts.close();
    }
  });
});
