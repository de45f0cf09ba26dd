import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * Each channel's whole life, through the sandbox providers over HTTP and their signed
 * notifications: pending → succeeded, → failed, → expired (the sweeper), → canceled.
 */
const CHANNELS = [
  { channel: 'bank', connector: 'sandbox_bank', ttlMs: 24 * 3_600_000 },
  { channel: 'ewallet', connector: 'sandbox_ewallet', ttlMs: 30 * 60_000 },
  { channel: 'counter', connector: 'sandbox_counter', ttlMs: 48 * 3_600_000 },
] as const;

describe('payment lifecycle, per channel', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    t = await createTestApp({ clock });
  });
  after(() => t.close());

  const create = async (channel: string) => {
    const res = await t.call('POST', '/payment/create', { body: quickStart({ channel }) });
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    assert.equal(p['status'], 'pending');
    return p;
  };
  const get = async (id: unknown) => json(await t.call('GET', `/payment/${String(id)}`));
  const simulate = (id: unknown, body: Record<string, unknown>) =>
    t.call('POST', `/sandbox/payment/${String(id)}/simulate`, { body });
  const events = async (id: unknown) =>
    (
      await t.testStore.store.query<{ type: string; object_version: number }>(
        'SELECT type, object_version FROM events WHERE object_id = $1 ORDER BY object_version',
        [id],
      )
    ).map((e) => `${e.type}@${e.object_version}`);

  for (const { channel, connector, ttlMs } of CHANNELS) {
    describe(channel, () => {
      it('pending → succeeded through the provider and its signed notification', async () => {
        const p = await create(channel);
        const sim = await simulate(p['id'], { outcome: 'succeeded' });
        assert.equal(sim.statusCode, 202, sim.body);
        assert.equal(json(sim)['provider_status'], 'paid');
        assert.equal((await get(p['id']))['status'], 'pending', 'simulate never writes the payment itself');

        const delivered = await t.deliverNotifications();
        assert.equal(delivered.sent, 1);
        const paid = await get(p['id']);
        assert.equal(paid['status'], 'succeeded');
        assert.equal(paid['version'], 3);
        assert.equal(paid['amount_paid'], 150000);
        assert.equal(paid['succeeded_at'], clock.now().toISOString());
        assert.deepEqual(await events(p['id']), ['payment.pending@2', 'payment.succeeded@3']);
        const rows = await t.testStore.store.query<{ status: string; connector: string; outcome: string }>(
          'SELECT status, connector, outcome FROM provider_notifications WHERE payment_id = $1',
          [p['id']],
        );
        assert.deepEqual(
          rows.map((r) => [r.status, r.connector, r.outcome]),
          [['processed', connector, 'applied: succeeded']],
        );
      });

      it('pending → failed', async () => {
        const p = await create(channel);
        assert.equal((await simulate(p['id'], { outcome: 'failed' })).statusCode, 202);
        await t.deliverNotifications();
        const failed = await get(p['id']);
        assert.equal(failed['status'], 'failed');
        assert.equal(failed['failure_code'], 'simulated_failure');
        assert.ok(failed['closed_at'] !== null);
        assert.deepEqual(await events(p['id']), ['payment.pending@2', 'payment.failed@3']);
      });

      it('pending → expired by the sweeper at expires_at, once', async () => {
        const p = await create(channel);
        assert.equal(new Date(String(p['expires_at'])).getTime() - clock.now().getTime(), ttlMs);
        clock.advance(ttlMs - 1);
        await t.sweepExpired();
        assert.equal((await get(p['id']))['status'], 'pending', 'not before expires_at');
        clock.advance(1);
        await t.sweepExpired();
        const expired = await get(p['id']);
        assert.equal(expired['status'], 'expired');
        // The provider closed the charge too and says so; that notification is old news now.
        await t.deliverNotifications();
        assert.equal((await get(p['id']))['version'], 3);
        assert.deepEqual(await events(p['id']), ['payment.pending@2', 'payment.expired@3']);
      });

      it('pending → canceled, closing the charge at the provider', async () => {
        const p = await create(channel);
        const res = await t.call('POST', `/payment/${String(p['id'])}/cancel`, { body: { cancellation_reason: 'abandoned' } });
        assert.equal(res.statusCode, 200, res.body);
        const canceled = json(res);
        assert.equal(canceled['status'], 'canceled');
        assert.equal(canceled['cancellation_reason'], 'abandoned');
        assert.deepEqual(await get(p['id']), canceled);
        const provider = t.providers.byConnector(connector);
        const reference = (
          await t.testStore.store.query<{ provider_reference: string }>(
            `SELECT provider_reference FROM payment_attempts WHERE payment_id = $1 AND status = 'canceled'`,
            [p['id']],
          )
        )[0]?.provider_reference;
        assert.equal(
          (provider?.get(String(reference)).body as { status: string }).status,
          provider === undefined ? '' : closedWord(connector),
        );
        await t.deliverNotifications();
        assert.deepEqual(await events(p['id']), ['payment.pending@2', 'payment.canceled@3']);
        const again = await t.call('POST', `/payment/${String(p['id'])}/cancel`);
        assert.equal(again.statusCode, 409);
        assert.equal(json(again)['code'], 'payment_state_conflict');
      });
    });
  }
});

function closedWord(connector: string): string {
  return { sandbox_bank: 'CLOSED', sandbox_ewallet: 'VOIDED', sandbox_counter: 'CANCELLED' }[connector] ?? '';
}
