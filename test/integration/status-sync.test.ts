import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { creationCompleterJob } from '../../src/jobs/creation-completer.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, json, quickStart, STATUS_SYNC_DELAY_MS, type TestApp } from '../harness/test-app.ts';

/**
 * Provider timeouts never leave a payment stuck: a create whose answer was lost is resumed with the
 * same attempt id (the provider dedupes), and a payment whose notification never comes is resolved
 * by the status sync, which asks the provider.
 */
describe('timeouts and the status sync', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    // Short real deadlines: a hung provider call costs this test 300 ms, not 10 s.
    t = await createTestApp({
      clock,
      connectorTimeoutMs: 600,
      connectorHttp: { retryBackoffMs: 0, maxRetries: 1, perTryTimeoutMs: 300 },
    });
  });
  after(() => t.close());

  const bank = () => {
    const p = t.providers.byConnector('sandbox_bank');
    assert.ok(p);
    return p;
  };
  const get = async (id: unknown) => json(await t.call('GET', `/payment/${String(id)}`));
  const events = async (id: unknown) =>
    (
      await t.testStore.store.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1 ORDER BY object_version', [
        id,
      ])
    ).map((e) => e.type);

  it('a create whose first answer is lost is completed by the retry of the same attempt (magic amount 77,777)', async () => {
    const before = bank().chargeCount;
    const res = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', amount: 77777 }) });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(res)['status'], 'pending');
    assert.equal(bank().chargeCount, before + 1, 'the re-sent attempt got the same charge');
    const attempts = await t.testStore.store.query('SELECT 1 FROM payment_attempts WHERE payment_id = $1', [json(res)['id']]);
    assert.equal(attempts.length, 1);
  });

  it('a create that times out on the only candidate is resumed with the same attempt, by a retry or by the completer', async () => {
    bank().faults = { create: { mode: 'timeout', remaining: 2 } };
    const before = bank().chargeCount;
    const body = quickStart({ channel: 'bank' });
    const first = await t.call('POST', '/payment/create', { body, headers: { 'idempotency-key': 'timeout-resume' } });
    assert.equal(first.statusCode, 503, first.body);
    assert.equal(json(first)['code'], 'provider_unavailable');
    assert.equal(bank().chargeCount, before + 1, 'the provider made the charge; only its answer was lost');
    const paymentId = (json(first)['details'] as { payment_id: string }[])[0]?.payment_id;
    const started = await t.testStore.store.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_attempts WHERE payment_id = $1',
      [paymentId],
    );
    assert.deepEqual(
      started.map((a) => a.status),
      ['started'],
      'not failed: its outcome is unknown',
    );

    const retry = await t.call('POST', '/payment/create', { body, headers: { 'idempotency-key': 'timeout-resume' } });
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(json(retry)['id'], paymentId);
    assert.equal(bank().chargeCount, before + 1, 'no second charge');
    const issued = await t.testStore.store.query<{ id: string; status: string }>(
      'SELECT id, status FROM payment_attempts WHERE payment_id = $1',
      [paymentId],
    );
    assert.deepEqual(issued, [{ id: started[0]?.id, status: 'issued' }]);

    // Nobody retries this one: the completer resumes it the same way.
    bank().faults = { create: { mode: 'timeout', remaining: 2 } };
    const abandoned = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
    assert.equal(abandoned.statusCode, 503);
    const abandonedId = (json(abandoned)['details'] as { payment_id: string }[])[0]?.payment_id;
    clock.advance(61_000);
    const completer = creationCompleterJob({ ...t.createDeps, abandonAfterMs: 60_000 });
    assert.equal(await completer.run(), 1);
    assert.equal((await get(abandonedId))['status'], 'pending');
  });

  it('resolves a payment whose notification never arrives by asking the provider', async () => {
    const p = json(await t.call('POST', '/payment/create', { body: quickStart({ channel: 'ewallet' }) }));
    const wallet = t.providers.byConnector('sandbox_ewallet');
    assert.ok(wallet);
    wallet.faults = { notifications: { mode: 'drop', remaining: 1 } };
    assert.equal(
      (await t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'succeeded' } })).statusCode,
      202,
    );
    assert.equal((await t.deliverNotifications()).sent, 0, 'the notification is lost');
    clock.advance(STATUS_SYNC_DELAY_MS - 1);
    await t.syncStatuses();
    assert.equal((await get(p['id']))['status'], 'pending', 'the first sync is not due yet');
    clock.advance(1);
    await t.syncStatuses();
    assert.equal((await get(p['id']))['status'], 'succeeded');
    assert.deepEqual(await events(p['id']), ['payment.pending', 'payment.succeeded']);
    const attempt = await t.testStore.store.query<{ status: string; next_sync_at: Date | null }>(
      'SELECT status, next_sync_at FROM payment_attempts WHERE payment_id = $1',
      [p['id']],
    );
    assert.deepEqual(attempt, [{ status: 'succeeded', next_sync_at: null }], 'a finished attempt is not polled any more');
  });

  it('keeps polling through provider errors with growing gaps, then resolves', async () => {
    const p = json(await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
    const attemptOf = async () =>
      (
        await t.testStore.store.query<{ next_sync_at: Date; sync_count: number }>(
          'SELECT next_sync_at, sync_count FROM payment_attempts WHERE payment_id = $1',
          [p['id']],
        )
      )[0];
    bank().faults = { query: { mode: 'error' }, notifications: { mode: 'drop' } };
    assert.equal(
      (await t.call('POST', `/sandbox/payment/${String(p['id'])}/simulate`, { body: { outcome: 'failed' } })).statusCode,
      202,
    );
    clock.advance(STATUS_SYNC_DELAY_MS);
    await t.syncStatuses();
    assert.equal((await get(p['id']))['status'], 'pending');
    const first = await attemptOf();
    assert.equal(first?.sync_count, 1);
    assert.equal(first?.next_sync_at.getTime(), clock.now().getTime() + 2 * STATUS_SYNC_DELAY_MS);
    clock.advance(2 * STATUS_SYNC_DELAY_MS);
    await t.syncStatuses();
    assert.equal((await attemptOf())?.next_sync_at.getTime(), clock.now().getTime() + 4 * STATUS_SYNC_DELAY_MS);
    bank().faults = {};
    clock.advance(4 * STATUS_SYNC_DELAY_MS);
    await t.syncStatuses();
    const after = await get(p['id']);
    assert.equal(after['status'], 'failed');
    assert.equal(after['failure_code'], 'simulated_failure');
  });

  it('a cancel whose answer is lost leaves the payment pending; the status sync then finds it canceled', async () => {
    const p = json(await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
    bank().faults = { close: { mode: 'timeout', remaining: 2 }, notifications: { mode: 'drop' } };
    const cancel = await t.call('POST', `/payment/${String(p['id'])}/cancel`, { headers: { 'idempotency-key': 'lost-cancel' } });
    assert.equal(cancel.statusCode, 503, cancel.body);
    assert.equal(cancel.headers['retry-after'], '2');
    assert.equal((await get(p['id']))['status'], 'pending', 'not guessed');
    bank().faults = {};
    clock.advance(STATUS_SYNC_DELAY_MS);
    await t.syncStatuses();
    assert.equal((await get(p['id']))['status'], 'canceled');
    assert.deepEqual(await events(p['id']), ['payment.pending', 'payment.canceled']);
  });
});
