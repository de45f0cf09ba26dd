import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';

/** POST /sandbox/payment/{id}/simulate: every outcome, amounts, magic amounts, refusals. */
describe('POST /sandbox/payment/{id}/simulate', () => {
  const ctx = appForSuite();

  const create = async (overrides: Record<string, unknown> = {}) => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', ...overrides }) });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };
  const simulate = (id: unknown, body: unknown, key?: string) =>
    ctx.t.call('POST', `/sandbox/payment/${String(id)}/simulate`, { body, ...(key === undefined ? {} : { key }) });
  const simulateRaw = (id: unknown, rawBody: string) =>
    ctx.t.call('POST', `/sandbox/payment/${String(id)}/simulate`, { rawBody });

  it('answers 202 with the simulation and changes the payment only through the notification', async () => {
    const p = await create();
    const res = await simulate(p['id'], { outcome: 'succeeded' });
    assert.equal(res.statusCode, 202);
    const body = json(res);
    assert.equal(body['object'], 'sandbox_simulation');
    assert.equal(body['amount'], 150000);
    assert.equal(body['connector'], 'sandbox_bank');
    assert.equal(body['provider_status'], 'paid');
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'succeeded');
  });

  it('reversed: a succeeded payment is taken back by the provider', async () => {
    const p = await create();
    await simulate(p['id'], { outcome: 'succeeded' });
    await ctx.t.deliverNotifications();
    assert.equal((await simulate(p['id'], { outcome: 'reversed' })).statusCode, 202);
    await ctx.t.deliverNotifications();
    const reversed = await ctx.t.payment(p['id']);
    assert.equal(reversed['status'], 'reversed');
    assert.deepEqual(await ctx.t.eventTypes(p['id']), ['payment.pending', 'payment.succeeded', 'payment.reversed']);
  });

  it('expired: the provider ends the charge before its time', async () => {
    const p = await create();
    assert.equal((await simulate(p['id'], { outcome: 'expired' })).statusCode, 202);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'expired');
  });

  it('settled: a pending payment cannot settle (409); a succeeded one settles through the provider', async () => {
    const p = await create();
    const early = await simulate(p['id'], { outcome: 'settled' });
    assert.equal(early.statusCode, 409);
    assert.equal(json(early)['code'], 'payment_state_conflict');
    await simulate(p['id'], { outcome: 'succeeded' });
    await ctx.t.deliverNotifications();
    const res = await simulate(p['id'], { outcome: 'settled' });
    assert.equal(res.statusCode, 202);
    assert.equal(json(res)['provider_status'], 'paid');
    assert.equal((await ctx.t.payment(p['id']))['settlement_id'], json(res)['settlement_id']);
  });

  it('refuses outcomes the payment state does not allow, with 409', async () => {
    const p = await create();
    const reversedWhilePending = await simulate(p['id'], { outcome: 'reversed' });
    assert.equal(reversedWhilePending.statusCode, 409);
    assert.equal(json(reversedWhilePending)['code'], 'payment_state_conflict');
    await simulate(p['id'], { outcome: 'failed' });
    await ctx.t.deliverNotifications();
    for (const outcome of ['succeeded', 'failed', 'expired']) {
      assert.equal((await simulate(p['id'], { outcome })).statusCode, 409, outcome);
    }
  });

  it('a partial payment keeps the payment pending and shows amount_paid; the rest completes it (bank)', async () => {
    const p = await create();
    assert.equal((await simulateRaw(p['id'], '{"outcome": "succeeded", "amount": 50000.50}')).statusCode, 202);
    await ctx.t.deliverNotifications();
    const partial = await ctx.t.payment(p['id']);
    assert.equal(partial['status'], 'pending');
    assert.equal(partial['amount_paid'], 50000.5);
    assert.equal(partial['version'], 3);
    assert.equal((await simulate(p['id'], { outcome: 'succeeded' })).statusCode, 202);
    await ctx.t.deliverNotifications();
    const paid = await ctx.t.payment(p['id']);
    assert.equal(paid['status'], 'succeeded');
    assert.equal(paid['amount_paid'], 150000);
    assert.deepEqual(await ctx.t.eventTypes(p['id']), ['payment.pending', 'payment.partially_paid', 'payment.succeeded']);
  });

  it('an over-payment succeeds and is recorded on the attempt (bank)', async () => {
    const p = await create();
    assert.equal((await simulate(p['id'], { outcome: 'succeeded', amount: 200000 })).statusCode, 202);
    await ctx.t.deliverNotifications();
    const paid = await ctx.t.payment(p['id']);
    assert.equal(paid['status'], 'succeeded');
    assert.equal(paid['amount'], 150000);
    assert.equal(paid['amount_paid'], 200000);
    const attempt = await ctx.t.testStore.store.query<{ amount_paid_minor: bigint }>(
      'SELECT amount_paid_minor FROM payment_attempts WHERE payment_id = $1',
      [p['id']],
    );
    assert.equal(attempt[0]?.amount_paid_minor, 20_000_000n);
  });

  it('e-wallets and counters take the exact amount only', async () => {
    for (const channel of ['ewallet', 'counter']) {
      const p = await create({ channel });
      const res = await simulate(p['id'], { outcome: 'succeeded', amount: 100000 });
      assert.equal(res.statusCode, 400, channel);
      assert.equal((json(res)['details'] as { issue: string }[])[0]?.issue, 'amount_not_accepted');
    }
  });

  it('parses the amount exactly like create', async () => {
    const p = await create();
    const tooPrecise = await simulateRaw(p['id'], '{"outcome": "succeeded", "amount": 100.005}');
    assert.equal(tooPrecise.statusCode, 400);
    assert.equal((json(tooPrecise)['details'] as { issue: string }[])[0]?.issue, 'amount_too_precise');
    const asString = await simulateRaw(p['id'], '{"outcome": "succeeded", "amount": "100"}');
    assert.equal(asString.statusCode, 400);
    const withFailed = await simulate(p['id'], { outcome: 'failed', amount: 100 });
    assert.equal(withFailed.statusCode, 400);
    assert.equal((json(withFailed)['details'] as { issue: string }[])[0]?.issue, 'not_allowed');
    const unknownOutcome = await simulate(p['id'], { outcome: 'refunded' });
    assert.equal(unknownOutcome.statusCode, 400);
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
  });

  it('is sandbox only (production keys get 404) and scoped by merchant', async () => {
    const live = json(await ctx.t.call('POST', '/payment/create', { body: quickStart(), key: ctx.t.a.productionKey }));
    const production = await simulate(live['id'], { outcome: 'succeeded' }, ctx.t.a.productionKey);
    assert.equal(production.statusCode, 404);
    assert.equal(json(production)['code'], 'route_not_found');
    const p = await create();
    const other = await simulate(p['id'], { outcome: 'succeeded' }, ctx.t.b.sandboxKey);
    assert.equal(other.statusCode, 404);
    assert.equal(json(other)['code'], 'resource_not_found');
  });

  it('magic amounts: 88,888 pays itself, 99,999 fails itself', async () => {
    const paid = await create({ amount: 88888 });
    const failed = await create({ amount: 99999 });
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(paid['id']))['status'], 'succeeded');
    assert.equal((await ctx.t.payment(failed['id']))['status'], 'failed');
    assert.equal((await ctx.t.payment(failed['id']))['failure_code'], 'declined_by_payer');
  });
});
