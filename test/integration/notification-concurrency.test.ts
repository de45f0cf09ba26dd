import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { processDueNotifications } from '../../src/modules/notifications/process-notifications.ts';
import { createTestApp, json, PUBLIC_BASE_URL, quickStart, STATUS_SYNC_DELAY_MS, type TestApp } from '../harness/test-app.ts';

/**
 * Several workers at once (on PostgreSQL really in parallel: SKIP LOCKED claims, row locks on the
 * payment): duplicated notifications and status syncs racing for the same payments change each
 * payment exactly once.
 */
describe('notification processing under concurrency', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    t = await createTestApp({ clock });
  });
  after(() => t.close());

  it('three processors and a status sync racing: one succeeded event per payment', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const res = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'ewallet' }) });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(String(json(res)['id']));
    }
    const wallet = t.providers.byConnector('sandbox_ewallet');
    assert.ok(wallet);
    wallet.faults = { notifications: { mode: 'duplicate' } };
    for (const id of ids) {
      assert.equal((await t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } })).statusCode, 202);
    }
    wallet.faults = {};
    assert.equal(await t.providers.dispatchDue(), 16, 'every notification delivered twice (stored once)');
    clock.advance(STATUS_SYNC_DELAY_MS);
    const deps = {
      store: t.testStore.store,
      clock,
      log: createLogger('silent'),
      publicBaseUrl: PUBLIC_BASE_URL,
      connectors: t.connectors,
    };
    const claimed = await Promise.all([
      processDueNotifications(deps, 3),
      processDueNotifications(deps, 3),
      processDueNotifications(deps, 3),
      t.syncStatuses().then(() => 0),
    ]);
    const rest = await processDueNotifications(deps, 100);
    assert.equal(claimed.reduce((a, b) => a + b, 0) + rest, 8, 'each stored notification claimed once');
    for (const id of ids) {
      const events = await t.testStore.store.query<{ type: string; object_version: number }>(
        'SELECT type, object_version FROM events WHERE object_id = $1 ORDER BY object_version',
        [id],
      );
      assert.deepEqual(
        events.map((e) => `${e.type}@${e.object_version}`),
        ['payment.pending@2', 'payment.succeeded@3'],
        id,
      );
    }
    const statuses = await t.testStore.store.query<{ status: string; n: bigint }>(
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
