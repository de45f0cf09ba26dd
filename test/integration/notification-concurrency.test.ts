import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/lib/logger.ts';
import { processDueNotifications } from '../../src/modules/notifications/process-notifications.ts';
import { PUBLIC_BASE_URL, STATUS_SYNC_DELAY_MS, appForSuite, json, quickStart } from '../harness/test-app.ts';

/**
 * Several workers at once (on PostgreSQL really in parallel: SKIP LOCKED claims, row locks on the
 * payment): duplicated notifications and status syncs racing for the same payments change each
 * payment exactly once.
 */
describe('notification processing under concurrency', () => {
  const ctx = appForSuite();

  it('three processors and a status sync racing: one succeeded event per payment', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'ewallet' }) });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(String(json(res)['id']));
    }
    const wallet = ctx.t.provider('sandbox_ewallet');
    wallet.faults = { notifications: { mode: 'duplicate' } };
    for (const id of ids) {
      assert.equal(
        (await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } })).statusCode,
        202,
      );
    }
    wallet.faults = {};
    assert.equal(await ctx.t.providers.dispatchDue(), 16, 'every notification delivered twice (stored once)');
    ctx.clock.advance(STATUS_SYNC_DELAY_MS);
    const deps = {
      store: ctx.t.testStore.store,
      clock: ctx.clock,
      log: createLogger('silent'),
      publicBaseUrl: PUBLIC_BASE_URL,
      connectors: ctx.t.connectors,
      connectorTimeoutMs: 2_000,
    };
    const claimed = await Promise.all([
      processDueNotifications(deps, 3),
      processDueNotifications(deps, 3),
      processDueNotifications(deps, 3),
      ctx.t.syncStatuses().then(() => 0),
    ]);
    const rest = await processDueNotifications(deps, 100);
    assert.equal(claimed.reduce((a, b) => a + b, 0) + rest, 8, 'each stored notification claimed once');
    for (const id of ids) {
      assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3'], id);
    }
    const statuses = await ctx.t.testStore.store.query<{ status: string; n: bigint }>(
      `SELECT status, count(*) AS n FROM provider_notifications WHERE payment_id = ANY($1) GROUP BY status ORDER BY status`,
      [ids],
    );
    // Whichever came first (sync or notification) changed the payment; the other found it done.
    assert.equal(
      statuses.reduce((n, s) => n + Number(s.n), 0),
      8,
    );
  });
});
