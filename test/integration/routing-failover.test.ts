import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { saveMerchantSettings } from '../../src/modules/merchants/merchant-settings.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { TEST_OPERATOR, appForSuite, createTestApp, json, quickStart } from '../harness/test-app.ts';

/**
 * `channel: auto` through the routing engine, with failover from a failing connector to the next
 * candidate, the trace stored on the attempts and shown on the payment, merchant preferences and
 * connector health.
 */
describe('routing and failover', () => {
  const ctx = appForSuite({ connectorHttp: { retryBackoffMs: 0, maxRetries: 1 } });

  type Routing = {
    candidates: { connector: string; instrument: string }[];
    trace: { connector: string; decision: string; reason: string; rank?: number }[];
    attempts: { connector: string; status: string; error_code: string | null }[];
  };
  const bank = () => ctx.t.provider('sandbox_bank');
  const create = async (body: Record<string, unknown>) => {
    const res = await ctx.t.call('POST', '/payment/create', { body });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };

  it('fails over from a failing bank provider to the e-wallet and records the trace on each attempt', async () => {
    bank().faults = { create: { mode: 'error', remaining: 2 } };
    const p = await create(quickStart());
    assert.equal(p['channel'], 'ewallet');
    const routing = p['routing'] as Routing;
    assert.deepEqual(
      routing.candidates.map((c) => c.connector),
      ['sandbox_bank', 'sandbox_ewallet', 'sandbox_counter'],
    );
    assert.deepEqual(
      routing.trace.map((e) => [e.connector, e.decision, e.rank]),
      [
        ['sandbox_bank', 'candidate', 1],
        ['sandbox_ewallet', 'candidate', 2],
        ['sandbox_counter', 'candidate', 3],
      ],
    );
    assert.deepEqual(
      routing.attempts.map((a) => [a.connector, a.status, a.error_code]),
      [
        ['sandbox_bank', 'failed', 'provider_error'],
        ['sandbox_ewallet', 'issued', null],
      ],
    );
    const attempts = await ctx.t.testStore.store.query<{ connector: string; routing_trace: Routing['trace'] }>(
      'SELECT connector, routing_trace FROM payment_attempts WHERE payment_id = $1 ORDER BY seq',
      [p['id']],
    );
    assert.equal(attempts.length, 2);
    for (const a of attempts) assert.deepEqual(a.routing_trace, routing.trace, `trace stored on the ${a.connector} attempt`);
    assert.deepEqual(json(await ctx.t.call('GET', `/payment/${String(p['id'])}`))['routing'], routing);
  });

  it('fails over on a definite decline too (magic amount 66,666)', async () => {
    const p = await create(quickStart({ amount: 66666 }));
    assert.equal(p['channel'], 'ewallet');
    assert.deepEqual(
      (p['routing'] as Routing).attempts.map((a) => [a.connector, a.status, a.error_code]),
      [
        ['sandbox_bank', 'failed', 'declined'],
        ['sandbox_ewallet', 'issued', null],
      ],
    );
  });

  it('demotes a connector after repeated failures, and tries it again after the cool-down', async () => {
    // Three creates in a row find the bank failing (each after one retry) and fail over.
    bank().faults = { create: { mode: 'error', remaining: 6 } };
    for (let i = 0; i < 3; i += 1) assert.equal((await create(quickStart()))['channel'], 'ewallet');
    bank().faults = {};
    const demoted = await create(quickStart());
    assert.equal(demoted['channel'], 'ewallet', 'the bank is tried last now');
    const routing = demoted['routing'] as Routing;
    assert.deepEqual(
      routing.trace.map((e) => [e.connector, e.rank]),
      [
        ['sandbox_ewallet', 1],
        ['sandbox_counter', 2],
        ['sandbox_bank', 3],
      ],
    );
    assert.match(routing.trace[2]?.reason ?? '', /demoted: 3 consecutive failures/);
    assert.deepEqual(
      routing.attempts.map((a) => a.connector),
      ['sandbox_ewallet'],
      'no call to the demoted bank',
    );
    ctx.clock.advance(60_000);
    const recovered = await create(quickStart());
    assert.equal(recovered['channel'], 'bank', 'tried in its place again after the cool-down; it answers');
    assert.equal(ctx.t.health.snapshot(ctx.clock.now())['sandbox_bank']?.state, 'healthy');
  });

  it('follows merchant preferences: channel order, instrument, excluded connectors', async () => {
    await saveMerchantSettings(
      ctx.t.testStore.store,
      ctx.t.a.id,
      {
        routing: { channel_order: ['counter'], instruments: { sandbox_counter: 'INDOMARET', sandbox_bank: 'NOPE' } },
      },
      TEST_OPERATOR,
      ctx.clock.now(),
    );
    const p = await create(quickStart());
    assert.equal(p['channel'], 'counter');
    assert.equal((p['instructions'] as { partner: string }).partner, 'INDOMARET');
    const trace = (p['routing'] as Routing).trace;
    assert.match(
      trace.find((e) => e.connector === 'sandbox_counter')?.reason ?? '',
      /instrument INDOMARET preferred by merchant/,
    );
    assert.match(
      trace.find((e) => e.connector === 'sandbox_bank')?.reason ?? '',
      /preferred instrument NOPE not offered; using BCA/,
    );

    await saveMerchantSettings(
      ctx.t.testStore.store,
      ctx.t.a.id,
      {
        routing: { excluded_connectors: ['sandbox_bank', 'sandbox_ewallet', 'sandbox_counter'] },
      },
      TEST_OPERATOR,
      ctx.clock.now(),
    );
    const refused = await ctx.t.call('POST', '/payment/create', { body: quickStart() });
    assert.equal(refused.statusCode, 422);
    assert.equal(json(refused)['code'], 'channel_unavailable');
    // Merchant B's settings are its own.
    assert.equal((await ctx.t.call('POST', '/payment/create', { body: quickStart(), key: ctx.t.b.sandboxKey })).statusCode, 201);
    await saveMerchantSettings(ctx.t.testStore.store, ctx.t.a.id, {}, TEST_OPERATOR, ctx.clock.now());
  });

  it('takes the instruction expiry from merchant settings, clamped to the connector bounds', async () => {
    await saveMerchantSettings(
      ctx.t.testStore.store,
      ctx.t.a.id,
      { instruction_ttl_seconds: { bank: 3_600, ewallet: 60 } },
      TEST_OPERATOR,
      ctx.clock.now(),
    );
    const bankPayment = await create(quickStart({ channel: 'bank' }));
    assert.equal(Date.parse(String(bankPayment['expires_at'])) - ctx.clock.now().getTime(), 3_600_000);
    const wallet = await create(quickStart({ channel: 'ewallet' }));
    assert.equal(
      Date.parse(String(wallet['expires_at'])) - ctx.clock.now().getTime(),
      5 * 60_000,
      'below the minimum: clamped to 5 min',
    );
    await saveMerchantSettings(ctx.t.testStore.store, ctx.t.a.id, {}, TEST_OPERATOR, ctx.clock.now());
  });

  it('reads settings with the API key: a change applies to new payments once the key cache expires', async () => {
    const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    const t = await createTestApp({ clock, authCacheTtlMs: 5_000 });
    try {
      const channelOf = async () => {
        const res = await t.call('POST', '/payment/create', { body: quickStart() });
        assert.equal(res.statusCode, 201, res.body);
        return json(res)['channel'];
      };
      assert.equal(await channelOf(), 'bank');
      await saveMerchantSettings(
        t.testStore.store,
        t.a.id,
        { routing: { channel_order: ['counter'] } },
        TEST_OPERATOR,
        clock.now(),
      );
      assert.equal(await channelOf(), 'bank', 'the cached key still carries the old settings');
      clock.advance(5_000);
      assert.equal(await channelOf(), 'counter', 'read again with the key after AUTH_CACHE_TTL_MS');
    } finally {
      await t.close();
    }
  });
});
