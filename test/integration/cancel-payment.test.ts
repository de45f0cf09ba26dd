import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';

/** POST /payment/{id}/cancel: states, Idempotency-Key, tenancy and provider failures. */
describe('POST /payment/{id}/cancel', () => {
  const ctx = appForSuite({ connectorHttp: { retryBackoffMs: 0, maxRetries: 1 } });

  const create = async (channel = 'bank') => json(await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel }) }));
  const cancel = (id: unknown, options: { key?: string; body?: unknown; apiKey?: string } = {}) =>
    ctx.t.call('POST', `/payment/${String(id)}/cancel`, {
      ...(options.body === undefined ? {} : { body: options.body }),
      ...(options.apiKey === undefined ? {} : { key: options.apiKey }),
      headers: options.key === undefined ? {} : { 'idempotency-key': options.key },
    });
  const keys = async (key: string) =>
    (await ctx.t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM idempotency_keys WHERE key = $1', [key]))[0]?.n;
  const bank = () => ctx.t.provider('sandbox_bank');

  it('replays a finished cancel byte for byte with Idempotent-Replayed', async () => {
    const p = await create();
    const first = await cancel(p['id'], { key: 'cancel-replay', body: { cancellation_reason: 'duplicate' } });
    assert.equal(first.statusCode, 200, first.body);
    ctx.clock.advance(1_000);
    const again = await cancel(p['id'], { key: 'cancel-replay', body: { cancellation_reason: 'duplicate' } });
    assert.equal(again.statusCode, 200);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.body, first.body);
    const reused = await cancel(p['id'], { key: 'cancel-replay', body: { cancellation_reason: 'fraudulent' } });
    assert.equal(reused.statusCode, 422);
    assert.equal(json(reused)['code'], 'idempotency_key_reused');
    const events = await ctx.t.testStore.store.query('SELECT 1 FROM events WHERE object_id = $1 AND type = $2', [
      p['id'],
      'payment.canceled',
    ]);
    assert.equal(events.length, 1);
  });

  it('answers 409 for a payment that is not pending and stores no key', async () => {
    const p = await create();
    await ctx.t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'succeeded' } });
    await ctx.t.deliverNotifications();
    const res = await cancel(p['id'], { key: 'cancel-paid' });
    assert.equal(res.statusCode, 409);
    assert.equal(json(res)['code'], 'payment_state_conflict');
    assert.deepEqual(json(res)['details'], [{ status: 'succeeded' }]);
    assert.equal(await keys('cancel-paid'), 0n);
  });

  it('answers 409 when the payer paid just before (the provider says so) and records the payment', async () => {
    const p = await create();
    bank().faults = { notifications: { mode: 'hold' } };
    await ctx.t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'succeeded' } });
    const res = await cancel(p['id']);
    assert.equal(res.statusCode, 409, res.body);
    assert.equal((await ctx.t.payment(p['id']))['status'], 'succeeded');
    bank().faults = {};
    bank().release('queued');
    await ctx.t.deliverNotifications();
    assert.deepEqual(
      await ctx.t.eventTypes(p['id']),
      ['payment.pending', 'payment.succeeded'],
      'the held notification changes nothing twice',
    );
  });

  it('answers 503 with Retry-After when the provider is down, changes nothing, and a retry with the key works', async () => {
    const p = await create();
    bank().faults = { close: { mode: 'error' } };
    const down = await cancel(p['id'], { key: 'cancel-down' });
    assert.equal(down.statusCode, 503);
    assert.equal(json(down)['code'], 'provider_unavailable');
    assert.equal(down.headers['retry-after'], '2');
    assert.equal(await keys('cancel-down'), 0n, 'nothing stored');
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
    bank().faults = {};
    const ok = await cancel(p['id'], { key: 'cancel-down' });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['idempotent-replayed'], undefined);
  });

  it("answers 404 for another merchant's or environment's payment, an unknown or malformed id", async () => {
    const p = await create();
    for (const res of [
      await cancel(p['id'], { apiKey: ctx.t.b.sandboxKey }),
      await cancel(p['id'], { apiKey: ctx.t.a.productionKey }),
      await cancel('pay_01M802HR5XTTXZAF0MA4G1EYJY'),
      await cancel('nope'),
    ]) {
      assert.equal(res.statusCode, 404);
      assert.equal(json(res)['code'], 'resource_not_found');
    }
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
  });

  it('validates the body strictly', async () => {
    const p = await create();
    const bad = await cancel(p['id'], { body: { cancellation_reason: 'bored' } });
    assert.equal(bad.statusCode, 400);
    const unknown = await cancel(p['id'], { body: { reason: 'x' } });
    assert.equal(unknown.statusCode, 400);
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
  });

  it('requires an API key', async () => {
    const p = await create();
    assert.equal((await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`, { key: null })).statusCode, 401);
  });
});
