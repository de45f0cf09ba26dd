import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import { merchantBalances, postEntry, verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { refundHoldEntry } from '../../src/modules/ledger/movements.ts';
import { SETTLEMENT_DELAY_MS } from '../../src/sandbox/settlement-reports.ts';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

const IDR = 'IDR' as CurrencyCode;
/** The bank sandbox's flat fee: IDR 4,000.00. */
const BANK_FEE = 4000;

/** Settlement: ingestion of provider reports, the settled payment, its event, ledger and API. */
describe(`settlement (${TEST_STORE})`, () => {
  const ctx = appForSuite();

  const paid = async (overrides: Record<string, unknown> = {}, key?: string) => {
    const res = await ctx.t.call('POST', '/payment/create', {
      body: quickStart({ channel: 'bank', ...overrides }),
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = json(res)['id'] as string;
    const sim = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, {
      body: { outcome: 'succeeded' },
      ...(key === undefined ? {} : { key }),
    });
    assert.equal(sim.statusCode, 202, sim.body);
    await ctx.t.deliverNotifications();
    return id;
  };
  const settle = (id: string, key?: string) =>
    ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, {
      body: { outcome: 'settled' },
      ...(key === undefined ? {} : { key }),
    });
  const balance = async (merchantId = ctx.t.a.id) =>
    (await merchantBalances(ctx.t.testStore.store, merchantId, 'sandbox')).find((b) => b.currency === IDR);

  it('simulate settled: the payment is settled with fee and net, payment.settled carries its version', async () => {
    const id = await paid();
    const before = await balance();
    const res = await settle(id);
    assert.equal(res.statusCode, 202, res.body);
    const body = json(res);
    const settlementId = body['settlement_id'];
    assert.match(String(settlementId), /^stl_/);
    const p = await ctx.t.payment(id);
    assert.equal(p['settlement_id'], settlementId);
    assert.equal(p['fee'], BANK_FEE);
    assert.equal(p['net'], 150000 - BANK_FEE);
    assert.equal(p['settled_at'], ctx.clock.now().toISOString());
    assert.equal(p['status'], 'succeeded');
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3', 'payment.settled@4']);
    const [event] = await ctx.t.testStore.store.query<{ payload: { data: { object: Record<string, unknown> } } }>(
      "SELECT payload FROM events WHERE object_id = $1 AND type = 'payment.settled'",
      [id],
    );
    assert.equal(event?.payload.data.object['version'], 4);
    assert.equal(event?.payload.data.object['net'], 146000);

    // Ledger: pending → available exactly, less the fee the merchant bears.
    const after = await balance();
    assert.ok(before !== undefined && after !== undefined);
    assert.equal(after.pendingMinor, before.pendingMinor - 15_000_000n);
    assert.equal(after.availableMinor, before.availableMinor + 14_600_000n);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);

    const s = await ctx.t.call('GET', `/settlement/${String(settlementId)}`);
    assert.equal(s.statusCode, 200, s.body);
    const settlement = json(s);
    assert.equal(settlement['object'], 'settlement');
    assert.equal(settlement['connector'], 'sandbox_bank');
    assert.equal(settlement['gross'], 150000);
    assert.equal(settlement['fee'], BANK_FEE);
    assert.equal(settlement['net'], 146000);
    assert.equal(settlement['payment_count'], 1);
    const lines = settlement['payments'] as Record<string, unknown>[];
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.['payment_id'], id);
    assert.equal(lines[0]?.['net'], 146000);
  });

  it("a batch's period runs from when its payment was paid to when it settled (not one instant)", async () => {
    const id = await paid();
    const paidAt = (await ctx.t.payment(id))['succeeded_at'];
    ctx.clock.advance(26 * 3_600_000);
    const res = await settle(id);
    assert.equal(res.statusCode, 202, res.body);
    const settledAt = (await ctx.t.payment(id))['settled_at'];
    assert.notEqual(paidAt, settledAt);
    const settlement = json(await ctx.t.call('GET', `/settlement/${String(json(res)['settlement_id'])}`));
    assert.deepEqual([settlement['period_start'], settlement['period_end']], [paidAt, settledAt]);
    const listed = json(await ctx.t.call('GET', '/settlement?limit=1'))['data'] as Record<string, unknown>[];
    assert.deepEqual([listed[0]?.['period_start'], listed[0]?.['period_end']], [paidAt, settledAt]);
  });

  it('every sandbox channel settles with its own fee (e-wallet 1.5 %, counter flat)', async () => {
    for (const [channel, fee] of [
      ['ewallet', 2250],
      ['counter', 5000],
    ] as const) {
      const id = await paid({ channel });
      const res = await settle(id);
      assert.equal(res.statusCode, 202, res.body);
      const p = await ctx.t.payment(id);
      assert.equal(p['fee'], fee, channel);
      assert.equal(p['net'], 150000 - fee, channel);
      const s = json(await ctx.t.call('GET', `/settlement/${String(p['settlement_id'])}`));
      assert.equal(s['connector'], `sandbox_${channel}`);
      const only = json(await ctx.t.call('GET', `/settlement?connector=sandbox_${channel}&limit=100`));
      const data = only['data'] as Record<string, unknown>[];
      assert.ok(data.some((x) => x['id'] === p['settlement_id']));
      assert.ok(data.every((x) => x['connector'] === `sandbox_${channel}`));
    }
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('settling twice, or a payment that is not succeeded, answers 409 and changes nothing', async () => {
    const id = await paid();
    assert.equal((await settle(id)).statusCode, 202);
    const again = await settle(id);
    assert.equal(again.statusCode, 409);
    assert.equal(json(again)['code'], 'payment_state_conflict');
    const pendingRes = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
    const pending = json(pendingRes)['id'] as string;
    const res = await settle(pending);
    assert.equal(res.statusCode, 409);
    assert.equal(json(res)['code'], 'payment_state_conflict');
    assert.equal((await ctx.t.payment(pending))['settled_at'], null);
    assert.deepEqual(await ctx.t.eventTypes(id), ['payment.pending', 'payment.succeeded', 'payment.settled']);
  });

  it('ingesting the same report again changes nothing', async () => {
    const id = await paid();
    await settle(id);
    const count = async () =>
      (await ctx.t.testStore.store.query<{ n: bigint }>('SELECT count(*)::bigint AS n FROM journal_entries'))[0]?.n;
    const entries = await count();
    const versions = (await ctx.t.payment(id))['version'];
    const rerun = await ctx.t.ingestSettlements('sandbox_bank');
    assert.deepEqual(rerun.settlements, []);
    assert.equal(rerun.settledPayments, 0);
    assert.equal(await count(), entries);
    assert.equal((await ctx.t.payment(id))['version'], versions);
    assert.deepEqual(await ctx.t.eventTypes(id), ['payment.pending', 'payment.succeeded', 'payment.settled']);
  });

  it('the schedule: paid charges settle T+1 by the provider clock, in one batch per merchant', async () => {
    const first = await paid();
    const second = await paid({ amount: 20000 });
    const other = await paid({}, ctx.t.b.sandboxKey);
    // Nothing is due yet.
    assert.equal((await ctx.t.ingestSettlements()).settledPayments, 0);
    ctx.clock.advance(SETTLEMENT_DELAY_MS);
    const run = await ctx.t.ingestSettlements();
    assert.ok(run.settledPayments >= 3, JSON.stringify(run));
    const a1 = await ctx.t.payment(first);
    const a2 = await ctx.t.payment(second);
    assert.equal(a1['settlement_id'], a2['settlement_id']);
    assert.equal(a2['fee'], BANK_FEE);
    assert.equal(a2['net'], 16000);
    const b = json(await ctx.t.call('GET', `/payment/${other}`, { key: ctx.t.b.sandboxKey }));
    assert.match(String(b['settlement_id']), /^stl_/);
    assert.notEqual(b['settlement_id'], a1['settlement_id']);
    const s = json(await ctx.t.call('GET', `/settlement/${String(a1['settlement_id'])}`));
    assert.ok((s['payment_count'] as number) >= 2);
    // Merchant A cannot see B's settlement, nor in its list.
    const foreign = await ctx.t.call('GET', `/settlement/${String(b['settlement_id'])}`);
    assert.equal(foreign.statusCode, 404);
    assert.equal(json(foreign)['code'], 'resource_not_found');
    const list = json(await ctx.t.call('GET', '/settlement?limit=100'));
    assert.ok(!(list['data'] as Record<string, unknown>[]).some((x) => x['id'] === b['settlement_id']));
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('concurrent ingestions settle each payment once (one event, one entry, one batch line)', async () => {
    const ids = [await paid(), await paid(), await paid(), await paid()];
    ctx.clock.advance(SETTLEMENT_DELAY_MS);
    const runs = await Promise.all([ctx.t.ingestSettlements(), ctx.t.ingestSettlements(), ctx.t.ingestSettlements()]);
    assert.ok(runs.reduce((n, r) => n + r.settledPayments, 0) >= ids.length);
    for (const id of ids) {
      assert.deepEqual(await ctx.t.eventTypes(id), ['payment.pending', 'payment.succeeded', 'payment.settled'], id);
      const [entries] = await ctx.t.testStore.store.query<{ n: bigint }>(
        "SELECT count(*)::bigint AS n FROM journal_entries WHERE payment_id = $1 AND type = 'settlement'",
        [id],
      );
      assert.equal(entries?.n, 1n, id);
    }
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('a refund held from pending before settlement: the settlement moves only what is still pending', async () => {
    const id = await paid();
    const refundId = newId('refund');
    const now = ctx.clock.now();
    await postEntry(
      ctx.t.testStore.store,
      refundHoldEntry(
        { merchantId: ctx.t.a.id, environment: 'sandbox', currency: IDR, now },
        { refundId, paymentId: id },
        5_000_000n,
        'merchant_pending',
      ),
    );
    const before = await balance();
    assert.equal((await settle(id)).statusCode, 202);
    const after = await balance();
    assert.ok(before !== undefined && after !== undefined);
    // P = 150,000.00 − 50,000.00 held = 100,000.00 leaves pending; available gains P − fee.
    assert.equal(after.pendingMinor, before.pendingMinor - 10_000_000n);
    assert.equal(after.availableMinor, before.availableMinor + 10_000_000n - 400_000n);
    assert.equal(after.refundsInFlightMinor, before.refundsInFlightMinor);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('report lines that do not fit are recorded as exceptions and never applied', async () => {
    const id = await paid();
    const provider = ctx.t.provider('sandbox_bank');
    const attempt = (
      await ctx.t.testStore.store.query<{ provider_reference: string }>(
        'SELECT provider_reference FROM payment_attempts WHERE payment_id = $1',
        [id],
      )
    )[0];
    assert.ok(attempt !== undefined);
    provider.faults = { settlementReport: [{ kind: 'amount', chargeId: attempt.provider_reference }] };
    try {
      const res = await settle(id);
      assert.equal(res.statusCode, 202);
      assert.equal(json(res)['settlement_id'], null);
      const p = await ctx.t.payment(id);
      assert.equal(p['settled_at'], null);
      const ex = await ctx.t.testStore.store.query<{ kind: string }>(
        'SELECT kind FROM settlement_exceptions WHERE payment_id = $1',
        [id],
      );
      assert.deepEqual(
        ex.map((e) => e.kind),
        ['amount_mismatch'],
      );
    } finally {
      provider.faults = {};
    }
    // Once the provider reports it right, the next run settles it.
    await ctx.t.ingestSettlements('sandbox_bank');
    assert.match(String((await ctx.t.payment(id))['settlement_id']), /^stl_/);
  });

  it('GET /settlement pages newest first with a cursor; bad cursors and ids are refused', async () => {
    for (let i = 0; i < 3; i += 1) {
      ctx.clock.advance(1_000);
      await settle(await paid());
    }
    const page1 = json(await ctx.t.call('GET', '/settlement?limit=2'));
    const data1 = page1['data'] as Record<string, unknown>[];
    assert.equal(data1.length, 2);
    assert.equal(page1['has_more'], true);
    assert.equal(data1[0]?.['payments'], undefined);
    const page2 = json(await ctx.t.call('GET', `/settlement?limit=2&starting_after=${String(page1['next_cursor'])}`));
    const data2 = page2['data'] as Record<string, unknown>[];
    assert.ok(data2.length >= 1);
    const ids = [...data1, ...data2].map((s) => s['id']);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(String(data1[0]?.['created_at']) >= String(data1[1]?.['created_at']));
    for (const bad of ['nope', newId('settlement'), 'stl_x']) {
      const res = await ctx.t.call('GET', `/settlement?starting_after=${bad}`);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(json(res)['code'], 'invalid_request');
    }
    assert.equal((await ctx.t.call('GET', '/settlement?limit=0')).statusCode, 400);
    assert.equal((await ctx.t.call('GET', '/settlement?colour=red')).statusCode, 400);
    assert.equal((await ctx.t.call('GET', `/settlement/${newId('settlement')}`)).statusCode, 404);
    assert.equal((await ctx.t.call('GET', '/settlement/not-an-id')).statusCode, 404);
    // The production key sees none of the sandbox settlements.
    const prod = json(await ctx.t.call('GET', '/settlement', { key: ctx.t.a.productionKey }));
    assert.deepEqual(prod['data'], []);
  });
});
