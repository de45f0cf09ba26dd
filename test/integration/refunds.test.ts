import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REFUND_SYNC_DELAY_MS } from '../../src/jobs/refund-sync.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Refunds end to end (docs/money.md, "Refunds"): the request, the provider's answer now or later
 * (notification or sync), the limits, idempotency, and the ledger after each.
 */
describe(`refunds (${TEST_STORE})`, () => {
  const ctx = appForSuite();
  type Channel = 'bank' | 'ewallet' | 'counter';

  /** A succeeded payment of `amount` (major units) on `channel`. */
  const paid = async (amount = 100_000, channel: Channel = 'bank'): Promise<string> => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ amount, channel }) });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    const sim = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(sim.statusCode, 202, sim.body);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['status'], 'succeeded');
    return id;
  };
  const refund = (paymentId: string, body?: unknown, opts: { key?: string; apiKey?: string } = {}) =>
    ctx.t.call('POST', `/payment/${paymentId}/refund`, {
      ...(body === undefined ? {} : { body }),
      ...(opts.apiKey === undefined ? {} : { key: opts.apiKey }),
      headers: opts.key === undefined ? {} : { 'idempotency-key': opts.key },
    });
  const getRefund = async (id: unknown) => json(await ctx.t.call('GET', `/refund/${String(id)}`));
  const balance = async () => {
    const res = await ctx.t.call('GET', '/balance?verify=true');
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res) as { balances: Record<string, unknown>[]; verification: { status: string } };
    assert.equal(body.verification.status, 'ok', res.body);
    return body.balances.find((b) => b['currency'] === 'IDR') ?? { pending: 0, available: 0, refunds_in_flight: 0 };
  };
  const ledgerOk = async () => assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  const bank = () => ctx.t.provider('sandbox_bank');

  it('refunds the whole payment: pending, then succeeded by the notification; balance and events follow', async () => {
    const id = await paid(100_000);
    const before = await balance();
    const res = await refund(id, undefined, { key: 'full-1' });
    assert.equal(res.statusCode, 201, res.body);
    const r = json(res);
    assert.equal(r['object'], 'refund');
    assert.equal(r['status'], 'pending');
    assert.equal(r['amount'], 100_000);
    assert.equal(r['payment_id'], id);
    assert.match(String(r['id']), /^ref_/);
    let b = await balance();
    assert.equal(b['refunds_in_flight'], Number(before['refunds_in_flight']) + 100_000);
    assert.equal(b['pending'], Number(before['pending']) - 100_000);
    await ctx.t.deliverNotifications();
    const done = await getRefund(r['id']);
    assert.equal(done['status'], 'succeeded');
    assert.equal(done['version'], 2);
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 100_000);
    assert.deepEqual(await ctx.t.eventTypes(r['id']), ['refund.succeeded']);
    b = await balance();
    assert.equal(b['refunds_in_flight'], before['refunds_in_flight']);
    assert.equal(b['pending'], Number(before['pending']) - 100_000);
    // Nothing is left to refund.
    const again = await refund(id, { amount: 1 });
    assert.equal(again.statusCode, 422);
    assert.equal(json(again)['code'], 'refund_exceeds_captured');
    await ledgerOk();
  });

  it('refunds in parts, several per payment, never more than paid', async () => {
    const id = await paid(100_000, 'ewallet');
    const first = await refund(id, { amount: 30_000.5, reason: 'requested_by_customer' });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(json(first)['reason'], 'requested_by_customer');
    const second = await refund(id, { amount: 50_000 });
    assert.equal(second.statusCode, 201, second.body);
    // 30,000.50 + 50,000 pending: 19,999.50 left.
    const tooMuch = await refund(id, { amount: 20_000 });
    assert.equal(tooMuch.statusCode, 422);
    const err = json(tooMuch);
    assert.equal(err['code'], 'refund_exceeds_captured');
    assert.equal((err['details'] as Record<string, unknown>[])[0]?.['refundable'], 19_999.5);
    const rest = await refund(id, {});
    assert.equal(rest.statusCode, 201);
    assert.equal(json(rest)['amount'], 19_999.5);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 100_000);
    await ledgerOk();
  });

  it('refuses a payment that is not succeeded (409), a counter payment (422), bad amounts (400), unknown ids (404)', async () => {
    const pending = json(await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
    const notPaid = await refund(String(pending['id']));
    assert.equal(notPaid.statusCode, 409);
    assert.equal(json(notPaid)['code'], 'payment_state_conflict');

    const counter = await paid(100_000, 'counter');
    const noRefunds = await refund(counter);
    assert.equal(noRefunds.statusCode, 422);
    assert.equal(json(noRefunds)['code'], 'refund_not_supported');

    const id = await paid(50_000);
    for (const body of [{ amount: 0 }, { amount: -1 }, { amount: 1.234 }, { amount: '5' }, { reason: 'bored' }, { x: 1 }]) {
      const res = await refund(id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(json(res)['code'], 'invalid_request');
    }
    for (const res of [
      await refund(id, undefined, { apiKey: ctx.t.b.sandboxKey }),
      await refund(id, undefined, { apiKey: ctx.t.a.productionKey }),
      await refund('pay_01M802HR5XTTXZAF0MA4G1EYJY'),
      await refund('nope'),
    ]) {
      assert.equal(res.statusCode, 404);
      assert.equal(json(res)['code'], 'resource_not_found');
    }
    const rows = await ctx.t.testStore.store.query('SELECT 1 FROM refunds WHERE payment_id = ANY($1)', [
      [String(pending['id']), counter, id],
    ]);
    assert.equal(rows.length, 0, 'rejections store nothing');
    await ledgerOk();
  });

  it('Idempotency-Key: a replay answers the same bytes, another body 422, a running request 409', async () => {
    const id = await paid(80_000);
    const first = await refund(id, { amount: 10_000 }, { key: 'idem-1' });
    assert.equal(first.statusCode, 201);
    const replay = await refund(id, { amount: 10_000 }, { key: 'idem-1' });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.body, first.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const other = await refund(id, { amount: 20_000 }, { key: 'idem-1' });
    assert.equal(other.statusCode, 422);
    assert.equal(json(other)['code'], 'idempotency_key_reused');
    const count = await ctx.t.testStore.store.query('SELECT id FROM refunds WHERE payment_id = $1', [id]);
    assert.equal(count.length, 1);

    // A request still waiting for its provider holds the key: a retry gets 409.
    let release!: () => void;
    const until = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Hold the provider's answer: the key stays started while the first request waits.
    const hold = installRefundHold(until);
    const running = refund(id, { amount: 5_000 }, { key: 'idem-2' });
    await hold.reached;
    const busy = await refund(id, { amount: 5_000 }, { key: 'idem-2' });
    assert.equal(busy.statusCode, 409);
    assert.equal(json(busy)['code'], 'idempotency_request_in_progress');
    release();
    assert.equal((await running).statusCode, 201);
    hold.uninstall();
    await ctx.t.deliverNotifications();
  });

  /** Wraps the bank provider's refund so its answer waits for `until` (the first call only). */
  function installRefundHold(until: Promise<void>) {
    const provider = bank();
    const original = provider.refund.bind(provider);
    let reachedResolve!: () => void;
    const reached = new Promise<void>((resolve) => {
      reachedResolve = resolve;
    });
    provider.refund = (key, body) => {
      provider.refund = original;
      reachedResolve();
      return { ...original(key, body), holdMs: null, holdUntil: until };
    };
    return { reached, uninstall: () => (provider.refund = original) };
  }

  it('fails asynchronously by notification: the hold goes back, refund.failed', async () => {
    const id = await paid(60_000);
    const before = await balance();
    bank().faults = { refund: { mode: 'fail', remaining: 1 } };
    const res = await refund(id, { amount: 60_000 });
    assert.equal(json(res)['status'], 'pending');
    await ctx.t.deliverNotifications();
    const r = await getRefund(json(res)['id']);
    assert.equal(r['status'], 'failed');
    assert.equal(r['failure_code'], 'refund_rejected');
    assert.deepEqual(await ctx.t.eventTypes(r['id']), ['refund.failed']);
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 0);
    assert.deepEqual(await balance(), before);
    // The money is refundable again.
    assert.equal((await refund(id, { amount: 60_000 })).statusCode, 201);
    await ctx.t.deliverNotifications();
    await ledgerOk();
  });

  it('finishes by the sync job when the notification is lost: succeeded and failed', async () => {
    const id = await paid(90_000);
    bank().faults = { refund: { mode: 'pending', delayMs: 30_000, remaining: 1 }, notifications: { mode: 'drop' } };
    const ok = json(await refund(id, { amount: 40_000 }));
    bank().faults = { refund: { mode: 'fail', delayMs: 30_000, remaining: 1 }, notifications: { mode: 'drop' } };
    const ko = json(await refund(id, { amount: 50_000 }));
    assert.equal(ok['status'], 'pending');
    assert.equal(ko['status'], 'pending');
    // Not due yet: nothing is asked.
    assert.equal(await ctx.t.syncRefunds(), 0);
    ctx.clock.advance(REFUND_SYNC_DELAY_MS);
    await ctx.t.deliverNotifications(); // dropped: nothing arrives
    bank().faults = {};
    assert.ok((await ctx.t.syncRefunds()) >= 2);
    assert.equal((await getRefund(ok['id']))['status'], 'succeeded');
    assert.equal((await getRefund(ko['id']))['status'], 'failed');
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 40_000);
    // Final refunds are not asked again.
    ctx.clock.advance(24 * 3_600_000);
    assert.equal(await ctx.t.syncRefunds(), 0);
    bank().faults = {};
    await ledgerOk();
  });

  it('a provider that declines at once fails the refund in the answer; one that does not answer leaves it pending for sync', async () => {
    const id = await paid(70_000);
    bank().faults = { refund: { mode: 'decline', remaining: 1 } };
    const declined = await refund(id, { amount: 70_000 });
    assert.equal(declined.statusCode, 201);
    assert.equal(json(declined)['status'], 'failed');
    assert.equal(json(declined)['failure_code'], 'declined');

    bank().faults = { refund: { mode: 'error', remaining: 1 } };
    const unknown = json(await refund(id, { amount: 70_000 }));
    assert.equal(unknown['status'], 'pending');
    ctx.clock.advance(REFUND_SYNC_DELAY_MS);
    await ctx.t.syncRefunds(); // re-sent: the provider makes it now
    await ctx.t.deliverNotifications();
    assert.equal((await getRefund(unknown['id']))['status'], 'succeeded');
    await ledgerOk();
  });

  it('refunds a settled payment from available; a failure goes back to available', async () => {
    const id = await paid(40_000);
    // The settlement API is built elsewhere: mark the payment settled and move its money as a
    // settlement would (pending → available, no fee).
    const store = ctx.t.testStore.store;
    const now = ctx.clock.now();
    await store.query(
      `UPDATE payments SET settlement_id = 'stl_test', settled_at = $2, fee_minor = 0, net_minor = amount_minor, version = version + 1 WHERE id = $1`,
      [id, now],
    );
    const { postEntry } = await import('../../src/modules/ledger/ledger.ts');
    const { settlementEntry } = await import('../../src/modules/ledger/movements.ts');
    await postEntry(
      store,
      settlementEntry({ merchantId: ctx.t.a.id, environment: 'sandbox', currency: 'IDR' as never, now }, 'stl_test', id, {
        grossMinor: 4_000_000n,
        feeMinor: 0n,
        pendingMinor: 4_000_000n,
      }),
    );
    const before = await balance();
    bank().faults = { refund: { mode: 'fail', remaining: 1, delayMs: 1_000 } };
    const r = json(await refund(id, { amount: 15_000 }));
    let b = await balance();
    assert.equal(b['available'], Number(before['available']) - 15_000);
    assert.equal(b['pending'], before['pending']);
    ctx.clock.advance(1_000);
    await ctx.t.deliverNotifications();
    assert.equal((await getRefund(r['id']))['status'], 'failed');
    b = await balance();
    assert.deepEqual(b, before);
    const held = await store.query<{ held_from: string }>('SELECT held_from FROM refunds WHERE id = $1', [r['id']]);
    assert.equal(held[0]?.held_from, 'merchant_available');
    bank().faults = {};
    await ledgerOk();
  });

  it('a refund held from pending and failed after the payment settled goes back to available', async () => {
    const id = await paid(30_000);
    bank().faults = { refund: { mode: 'fail', remaining: 1, delayMs: 10_000 } };
    const r = json(await refund(id, { amount: 10_000 }));
    const store = ctx.t.testStore.store;
    const now = ctx.clock.now();
    const { paymentPendingMinor, postEntry } = await import('../../src/modules/ledger/ledger.ts');
    const { settlementEntry } = await import('../../src/modules/ledger/movements.ts');
    const pendingMinor = await paymentPendingMinor(store, ctx.t.a.id, 'sandbox', id);
    assert.equal(pendingMinor, 2_000_000n, 'the hold left 20,000 pending');
    await store.query(
      `UPDATE payments SET settlement_id = 'stl_test2', settled_at = $2, fee_minor = 0, net_minor = amount_minor, version = version + 1 WHERE id = $1`,
      [id, now],
    );
    await postEntry(
      store,
      settlementEntry({ merchantId: ctx.t.a.id, environment: 'sandbox', currency: 'IDR' as never, now }, 'stl_test2', id, {
        grossMinor: 3_000_000n,
        feeMinor: 0n,
        pendingMinor,
      }),
    );
    const before = await balance();
    ctx.clock.advance(10_000);
    await ctx.t.deliverNotifications();
    assert.equal((await getRefund(r['id']))['status'], 'failed');
    const after = await balance();
    assert.equal(after['available'], Number(before['available']) + 10_000);
    assert.equal(after['pending'], before['pending']);
    bank().faults = {};
    await ledgerOk();
  });

  it('a reversal takes what is not refunded or held; a refund pending at the reversal that then fails goes to the provider', async () => {
    const id = await paid(100_000);
    const start = await balance();
    assert.equal((await refund(id, { amount: 20_000 })).statusCode, 201);
    await ctx.t.deliverNotifications(); // succeeded
    bank().faults = { refund: { mode: 'fail', remaining: 1, delayMs: 60_000 } };
    const held = json(await refund(id, { amount: 30_000 }));
    bank().faults = {};
    const sim = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'reversed' } });
    assert.equal(sim.statusCode, 202, sim.body);
    await ctx.t.deliverNotifications();
    const p = await ctx.t.payment(id);
    assert.equal(p['status'], 'reversed');
    assert.equal(p['reversal_reason'], 'chargeback');
    // The reversal took 50,000 (100,000 − 20,000 refunded − 30,000 held).
    let b = await balance();
    assert.equal(b['pending'], Number(start['pending']) - 100_000);
    assert.equal(b['refunds_in_flight'], Number(start['refunds_in_flight']) + 30_000);
    const afterReversal = await refund(id, { amount: 1 });
    assert.equal(afterReversal.statusCode, 409);
    ctx.clock.advance(60_000);
    await ctx.t.deliverNotifications();
    assert.equal((await getRefund(held['id']))['status'], 'failed');
    b = await balance();
    assert.equal(b['pending'], Number(start['pending']) - 100_000, 'the failed hold does not go back to the merchant');
    assert.equal(b['refunds_in_flight'], start['refunds_in_flight']);
    await ledgerOk();
  });

  it('a counter reversal carries counter_reversal', async () => {
    const id = await paid(100_000, 'counter');
    await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'reversed' } });
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['reversal_reason'], 'counter_reversal');
  });

  it("GET /refund/{id}: another merchant's or environment's refund is 404 like an unknown id", async () => {
    const id = await paid(20_000);
    const r = json(await refund(id));
    assert.equal((await ctx.t.call('GET', `/refund/${String(r['id'])}`)).statusCode, 200);
    for (const res of [
      await ctx.t.call('GET', `/refund/${String(r['id'])}`, { key: ctx.t.b.sandboxKey }),
      await ctx.t.call('GET', `/refund/${String(r['id'])}`, { key: ctx.t.a.productionKey }),
      await ctx.t.call('GET', '/refund/ref_01M802HR5XTTXZAF0MA4G1EYJY'),
      await ctx.t.call('GET', '/refund/nope'),
    ]) {
      assert.equal(res.statusCode, 404);
      assert.equal(json(res)['code'], 'resource_not_found');
    }
    await ctx.t.deliverNotifications();
  });

  it('GET /balance is per merchant and environment; verify reports ok', async () => {
    const other = await ctx.t.call('GET', '/balance?verify=true', { key: ctx.t.b.sandboxKey });
    assert.equal(other.statusCode, 200);
    assert.deepEqual(json(other)['balances'], []);
    const plain = json(await ctx.t.call('GET', '/balance'));
    assert.equal(plain['verification'], null);
    assert.equal(plain['object'], 'balance');
    const bad = await ctx.t.call('GET', '/balance?verify=maybe');
    assert.equal(bad.statusCode, 400);
  });
});

describe(`refunds: crash after the provider answered (${TEST_STORE})`, () => {
  // A failpoint that throws once where the process would die: after the provider answered, before
  // anything of its answer is stored.
  let armed = false;
  const failpoints = {
    hit(name: string) {
      if (name === 'refund.after_connector' && armed) {
        armed = false;
        throw new Error('failpoint refund.after_connector');
      }
    },
  };
  const ctx = appForSuite({ failpoints, idempotencyLeaseMs: 30_000 });

  it('a retry with the same Idempotency-Key finishes the same refund, once', async () => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ amount: 50_000, channel: 'bank' }) });
    const id = String(json(res)['id']);
    await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } });
    await ctx.t.deliverNotifications();
    const send = () =>
      ctx.t.call('POST', `/payment/${id}/refund`, { body: { amount: 20_000 }, headers: { 'idempotency-key': 'crash-1' } });
    armed = true;
    const crashed = await send();
    assert.equal(crashed.statusCode, 500);
    // The dead run still holds the key until its lease expires.
    const busy = await send();
    assert.equal(busy.statusCode, 409);
    assert.equal(json(busy)['code'], 'idempotency_request_in_progress');
    ctx.clock.advance(30_001);
    const resumed = await send();
    assert.equal(resumed.statusCode, 201, resumed.body);
    const refunds = await ctx.t.testStore.store.query<{ id: string; amount_minor: bigint }>(
      'SELECT id, amount_minor FROM refunds WHERE payment_id = $1',
      [id],
    );
    assert.equal(refunds.length, 1, 'one refund, not two');
    assert.equal(json(resumed)['id'], refunds[0]?.id);
    const replay = await send();
    assert.equal(replay.body, resumed.body);
    await ctx.t.deliverNotifications();
    const done = json(await ctx.t.call('GET', `/refund/${refunds[0]?.id}`));
    assert.equal(done['status'], 'succeeded');
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 20_000);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });
});

describe(`refunds: concurrent requests never exceed the payment (${TEST_STORE})`, () => {
  const ctx = appForSuite();

  it('20 concurrent refunds of 10,000 on a 100,000 payment: exactly 10 accepted, 10 refused, ledger balanced', async () => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ amount: 100_000, channel: 'bank' }) });
    const id = String(json(res)['id']);
    await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } });
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['status'], 'succeeded');
    // On PostgreSQL these run in parallel sessions and queue on the payment row lock; the embedded
    // store is one session and runs them one after another (the same rule, checked either way).
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ctx.t.call('POST', `/payment/${id}/refund`, { body: { amount: 10_000 }, headers: { 'idempotency-key': `conc-${i}` } }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 422).length, 10, statuses.join(','));
    for (const a of answers.filter((x) => x.statusCode === 422)) assert.equal(json(a)['code'], 'refund_exceeds_captured');
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['amount_refunded'], 100_000);
    const sum = await ctx.t.testStore.store.query<{ s: bigint }>(
      `SELECT sum(amount_minor)::bigint AS s FROM refunds WHERE payment_id = $1 AND status <> 'failed'`,
      [id],
    );
    assert.equal(sum[0]?.s, 10_000_000n);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });
});
