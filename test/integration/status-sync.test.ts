import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { creationCompleterJob } from '../../src/jobs/creation-completer.ts';
import { STATUS_SYNC_DELAY_MS, appForSuite, json, quickStart } from '../harness/test-app.ts';

/**
 * Provider timeouts never leave a payment stuck: a create whose answer was lost is resumed with the
 * same attempt id (the provider dedupes), and a payment whose notification never comes is resolved
 * by the status sync, which asks the provider.
 */
describe('timeouts and the status sync', () => {
  // Real deadlines, shorter than the defaults: a hung provider try costs this test 1 s, not 4 s,
  // and leaves the retry ample time even on a loaded machine.
  const ctx = appForSuite({
    connectorTimeoutMs: 10_000,
    connectorHttp: { retryBackoffMs: 0, maxRetries: 1, perTryTimeoutMs: 1_000 },
  });

  const bank = () => ctx.t.provider('sandbox_bank');

  it('a create whose first answer is lost is completed by the retry of the same attempt (magic amount 77,777)', async () => {
    const before = bank().chargeCount;
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', amount: 77777 }) });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(res)['status'], 'pending');
    assert.equal(bank().chargeCount, before + 1, 'the re-sent attempt got the same charge');
    const attempts = await ctx.t.testStore.store.query('SELECT 1 FROM payment_attempts WHERE payment_id = $1', [json(res)['id']]);
    assert.equal(attempts.length, 1);
  });

  it('a create that times out on the only candidate is resumed with the same attempt, by a retry or by the completer', async () => {
    bank().faults = { create: { mode: 'timeout', remaining: 2 } };
    const before = bank().chargeCount;
    const body = quickStart({ channel: 'bank' });
    const first = await ctx.t.call('POST', '/payment/create', { body, headers: { 'idempotency-key': 'timeout-resume' } });
    assert.equal(first.statusCode, 503, first.body);
    assert.equal(json(first)['code'], 'provider_unavailable');
    assert.equal(bank().chargeCount, before + 1, 'the provider made the charge; only its answer was lost');
    const paymentId = (json(first)['details'] as { payment_id: string }[])[0]?.payment_id;
    const started = await ctx.t.testStore.store.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_attempts WHERE payment_id = $1',
      [paymentId],
    );
    assert.deepEqual(
      started.map((a) => a.status),
      ['started'],
      'not failed: its outcome is unknown',
    );

    const retry = await ctx.t.call('POST', '/payment/create', { body, headers: { 'idempotency-key': 'timeout-resume' } });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(json(retry)['id'], paymentId);
    assert.equal(bank().chargeCount, before + 1, 'no second charge');
    const issued = await ctx.t.testStore.store.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_attempts WHERE payment_id = $1',
      [paymentId],
    );
    assert.deepEqual(issued, [{ id: started[0]?.id, status: 'issued' }]);

    // Nobody retries this one: the completer resumes it the same way.
    bank().faults = { create: { mode: 'timeout', remaining: 2 } };
    const abandoned = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
    assert.equal(abandoned.statusCode, 503);
    const abandonedId = (json(abandoned)['details'] as { payment_id: string }[])[0]?.payment_id;
    ctx.clock.advance(61_000);
    const completer = creationCompleterJob({ ...ctx.t.createDeps, abandonAfterMs: 60_000 });
    assert.ok((await completer.run()) >= 1);
    assert.equal((await ctx.t.payment(abandonedId))['status'], 'pending');
  });

  it('resolves a payment whose notification never arrives by asking the provider', async () => {
    const p = json(await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'ewallet' }) }));
    const wallet = ctx.t.provider('sandbox_ewallet');
    wallet.faults = { notifications: { mode: 'drop', remaining: 1 } };
    assert.equal(
      (await ctx.t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'succeeded' } })).statusCode,
      202,
    );
    assert.equal((await ctx.t.deliverNotifications()).sent, 0, 'the notification is lost');
    ctx.clock.advance(STATUS_SYNC_DELAY_MS - 1);
    await ctx.t.syncStatuses();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending', 'the first sync is not due yet');
    ctx.clock.advance(1);
    await ctx.t.syncStatuses();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'succeeded');
    assert.deepEqual(await ctx.t.eventTypes(p['id']), ['payment.pending', 'payment.succeeded']);
    const attempt = await ctx.t.testStore.store.query<{ status: string; next_sync_at: Date | null }>(
      'SELECT status, next_sync_at FROM payment_attempts WHERE payment_id = $1',
      [p['id']],
    );
    assert.deepEqual(attempt, [{ status: 'succeeded', next_sync_at: null }], 'a finished attempt is not polled any more');
  });

  it('keeps polling through provider errors with growing gaps, then resolves', async () => {
    const p = json(await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
    const attemptOf = async () =>
      (
        await ctx.t.testStore.store.query<{ next_sync_at: Date; sync_count: number }>(
          'SELECT next_sync_at, sync_count FROM payment_attempts WHERE payment_id = $1',
          [p['id']],
        )
      )[0];
    bank().faults = { query: { mode: 'error' }, notifications: { mode: 'drop' } };
    assert.equal(
      (await ctx.t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'failed' } })).statusCode,
      202,
    );
    ctx.clock.advance(STATUS_SYNC_DELAY_MS);
    await ctx.t.syncStatuses();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending');
    const first = await attemptOf();
    assert.equal(first?.sync_count, 1);
    assert.equal(first?.next_sync_at.getTime(), ctx.clock.now().getTime() + 2 * STATUS_SYNC_DELAY_MS);
    ctx.clock.advance(2 * STATUS_SYNC_DELAY_MS);
    await ctx.t.syncStatuses();
    assert.equal((await attemptOf())?.next_sync_at.getTime(), ctx.clock.now().getTime() + 4 * STATUS_SYNC_DELAY_MS);
    bank().faults = {};
    ctx.clock.advance(4 * STATUS_SYNC_DELAY_MS);
    await ctx.t.syncStatuses();
    const after = await ctx.t.payment(p['id']);
    assert.equal(after['status'], 'failed');
    assert.equal(after['failure_code'], 'simulated_failure');
  });

  it('a cancel whose answer is lost leaves the payment pending; the status sync then finds it canceled', async () => {
    const p = json(await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
    bank().faults = { close: { mode: 'timeout', remaining: 2 }, notifications: { mode: 'drop' } };
    const cancel = await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`, {
      headers: { 'idempotency-key': 'lost-cancel' },
    });
    assert.equal(cancel.statusCode, 503, cancel.body);
    assert.equal(cancel.headers['retry-after'], '2');
    assert.equal((await ctx.t.payment(p['id']))['status'], 'pending', 'not guessed');
    bank().faults = {};
    ctx.clock.advance(STATUS_SYNC_DELAY_MS);
    await ctx.t.syncStatuses();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'canceled');
    assert.deepEqual(await ctx.t.eventTypes(p['id']), ['payment.pending', 'payment.canceled']);
  });
});
