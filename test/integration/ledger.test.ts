import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import {
  assertBalanced,
  credit,
  debit,
  merchantBalances,
  paymentPendingMinor,
  postEntry,
  verifyLedger,
} from '../../src/modules/ledger/ledger.ts';
import {
  captureEntry,
  refundHoldEntry,
  refundPostEntry,
  refundVoidEntry,
  reversalEntry,
  settlementEntry,
} from '../../src/modules/ledger/movements.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

const IDR = 'IDR' as CurrencyCode;

describe(`ledger (${TEST_STORE})`, () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());
  const scope = () => ({ merchantId: t.a.id, environment: 'sandbox' as const, currency: IDR, now: new Date() });

  it('posts a capture and a settlement, and balances follow', async () => {
    const payment = newId('payment');
    const settlement = newId('settlement');
    assert.equal((await postEntry(t.testStore.store, captureEntry(scope(), payment, 150_000_00n))).status, 'posted');
    let [balance] = await merchantBalances(t.testStore.store, t.a.id, 'sandbox');
    assert.equal(balance?.pendingMinor, 150_000_00n);
    await postEntry(
      t.testStore.store,
      settlementEntry(scope(), settlement, payment, { grossMinor: 150_000_00n, feeMinor: 4_500_00n, pendingMinor: 150_000_00n }),
    );
    [balance] = await merchantBalances(t.testStore.store, t.a.id, 'sandbox');
    assert.equal(balance?.pendingMinor, 0n);
    assert.equal(balance?.availableMinor, 145_500_00n);
    assert.deepEqual(await verifyLedger(t.testStore.store), []);
  });

  it('a payment that succeeds captures what was paid, once; a reversal takes it back; duplicates post nothing', async () => {
    const res = await t.call('POST', '/payment/create', {
      body: quickStart({ channel: 'bank', amount: 12_345 }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    const usd = async () => (await merchantBalances(t.testStore.store, t.a.id, 'sandbox')).find((b) => b.currency === 'IDR');
    const before = (await usd())?.pendingMinor ?? 0n;
    const entries = async () =>
      (
        await t.testStore.store.query<{ type: string }>(
          'SELECT type FROM journal_entries WHERE object_id = $1 ORDER BY created_at, type',
          [id],
        )
      ).map((r) => r.type);
    assert.equal((await t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } })).statusCode, 202);
    t.provider('sandbox_bank').faults = { notifications: { mode: 'duplicate', remaining: 1 } };
    await t.deliverNotifications();
    assert.equal((await t.payment(id))['status'], 'succeeded');
    assert.equal((await usd())?.pendingMinor, before + 12_345_00n);
    assert.deepEqual(await entries(), ['capture']);
    assert.equal((await t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'reversed' } })).statusCode, 202);
    await t.deliverNotifications();
    assert.equal((await t.payment(id))['status'], 'reversed');
    assert.equal((await usd())?.pendingMinor, before);
    assert.deepEqual((await entries()).sort(), ['capture', 'reversal']);
    assert.deepEqual(await verifyLedger(t.testStore.store), []);
  });

  it('answers exists for a movement posted twice, changing nothing', async () => {
    const payment = newId('payment');
    const first = await postEntry(t.testStore.store, captureEntry(scope(), payment, 1_000_00n));
    const before = await merchantBalances(t.testStore.store, t.a.id, 'sandbox');
    const again = await postEntry(t.testStore.store, captureEntry(scope(), payment, 1_000_00n));
    assert.deepEqual(again, { status: 'exists', id: first.id });
    assert.deepEqual(await merchantBalances(t.testStore.store, t.a.id, 'sandbox'), before);
  });

  it('refuses an unbalanced entry in code and in the database', async () => {
    assert.throws(() => assertBalanced([debit('fees', IDR, 5n), credit('merchant_pending', IDR, 4n)]), /does not balance/);
    // Bypass the code: the deferred trigger refuses the commit.
    const id = newId('journalEntry');
    await assert.rejects(
      t.testStore.store.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO ledger_accounts (merchant_id, environment, currency, kind, created_at, updated_at) VALUES ($1, 'sandbox', 'IDR', 'fees', now(), now()) ON CONFLICT DO NOTHING`,
          [t.a.id],
        );
        await tx.query(
          `INSERT INTO journal_entries (id, merchant_id, environment, entry_key, type, object_type, object_id, created_at) VALUES ($1, $2, 'sandbox', $1, 'capture', 'payment', 'x', now())`,
          [id, t.a.id],
        );
        await tx.query(
          `INSERT INTO postings (entry_id, seq, merchant_id, environment, currency, account_kind, amount_minor) VALUES ($1, 1, $2, 'sandbox', 'IDR', 'fees', 5)`,
          [id, t.a.id],
        );
      }),
      /does not balance/,
    );
  });

  it('refuses updates and deletes of entries and postings', async () => {
    const posted = await postEntry(t.testStore.store, captureEntry(scope(), newId('payment'), 7n));
    await assert.rejects(
      t.testStore.store.query('UPDATE postings SET amount_minor = 8 WHERE entry_id = $1 AND seq = 1', [posted.id]),
      /immutable/,
    );
    await assert.rejects(t.testStore.store.query('DELETE FROM journal_entries WHERE id = $1', [posted.id]), /immutable/);
  });

  it('random sequences of movements keep every invariant (property)', async () => {
    const movement = fc.oneof(
      fc.record({ kind: fc.constant('capture' as const), amount: fc.bigInt({ min: 1n, max: 10n ** 12n }) }),
      fc.record({ kind: fc.constant('settle' as const), fee: fc.bigInt({ min: 0n, max: 1000n }) }),
      fc.record({
        kind: fc.constant('refund' as const),
        outcome: fc.constantFrom('post', 'void'),
        part: fc.integer({ min: 1, max: 100 }),
      }),
      fc.record({ kind: fc.constant('reverse' as const) }),
      fc.record({ kind: fc.constant('resend' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(movement, { minLength: 1, maxLength: 12 }), async (moves) => {
        const merchantScope = { merchantId: t.b.id, environment: 'production' as const, currency: IDR, now: new Date() };
        const captured: { id: string; amount: bigint; settled: boolean; reversed: boolean }[] = [];
        let lastEntry: Parameters<typeof postEntry>[1] | undefined;
        for (const m of moves) {
          let e: Parameters<typeof postEntry>[1] | undefined;
          const open = captured.find((p) => !p.reversed);
          if (m.kind === 'capture') {
            const id = newId('payment');
            captured.push({ id, amount: m.amount, settled: false, reversed: false });
            e = captureEntry(merchantScope, id, m.amount);
          } else if (m.kind === 'settle' && open !== undefined && !open.settled && m.fee < open.amount) {
            open.settled = true;
            const pendingMinor = await paymentPendingMinor(t.testStore.store, t.b.id, 'production', open.id);
            e = settlementEntry(merchantScope, newId('settlement'), open.id, {
              grossMinor: open.amount,
              feeMinor: m.fee,
              pendingMinor,
            });
          } else if (m.kind === 'refund' && open !== undefined) {
            const amount = (open.amount * BigInt(m.part)) / 100n || 1n;
            const refund = { refundId: newId('refund'), paymentId: open.id };
            const from = open.settled ? 'merchant_available' : 'merchant_pending';
            await postEntry(t.testStore.store, refundHoldEntry(merchantScope, refund, amount, from));
            e =
              m.outcome === 'post'
                ? refundPostEntry(merchantScope, refund, amount)
                : refundVoidEntry(merchantScope, refund, amount, from);
          } else if (m.kind === 'reverse' && open !== undefined) {
            open.reversed = true;
            e = reversalEntry(merchantScope, open.id, open.amount, open.settled ? 'merchant_available' : 'merchant_pending');
          } else if (m.kind === 'resend' && lastEntry !== undefined) {
            assert.equal((await postEntry(t.testStore.store, lastEntry)).status, 'exists');
          }
          if (e !== undefined) {
            await t.testStore.store.transaction((tx) => postEntry(tx, e));
            lastEntry = e;
          }
          assert.deepEqual(await verifyLedger(t.testStore.store), []);
          // A settled payment leaves nothing pending: the settlement moved exactly what was left.
          for (const p of captured.filter((c) => c.settled)) {
            assert.equal(await paymentPendingMinor(t.testStore.store, t.b.id, 'production', p.id), 0n);
          }
        }
      }),
      { numRuns: TEST_STORE === 'postgres' ? 40 : 25 },
    );
  });
});
