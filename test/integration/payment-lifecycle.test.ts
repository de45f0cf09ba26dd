import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';

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
  const ctx = appForSuite();

  const create = async (channel: string) => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel }) });
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    assert.equal(p['status'], 'pending');
    return p;
  };
  const simulate = (id: unknown, body: Record<string, unknown>) =>
    ctx.t.call('POST', `/sandbox/payment/${String(id)}/simulate`, { body });

  for (const { channel, connector, ttlMs } of CHANNELS) {
    describe(channel, () => {
      it('pending → succeeded through the provider and its signed notification', async () => {
        const p = await create(channel);
        const sim = await simulate(p['id'], { outcome: 'succeeded' });
        assert.equal(sim.statusCode, 202, sim.body);
        assert.equal(json(sim)['provider_status'], 'paid');
        assert.equal((await ctx.t.payment(p['id']))['status'], 'pending', 'simulate never writes the payment itself');

        const delivered = await ctx.t.deliverNotifications();
        assert.equal(delivered.sent, 1);
        const paid = await ctx.t.payment(p['id']);
        assert.equal(paid['status'], 'succeeded');
        assert.equal(paid['version'], 3);
        assert.equal(paid['amount_paid'], 150000);
        assert.equal(paid['succeeded_at'], ctx.clock.now().toISOString());
        assert.deepEqual(await ctx.t.eventTrail(p['id']), ['payment.pending@2', 'payment.succeeded@3']);
        const rows = await ctx.t.testStore.store.query<{ status: string; connector: string; outcome: string }>(
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
        await ctx.t.deliverNotifications();
        const failed = await ctx.t.payment(p['id']);
        assert.equal(failed['status'], 'failed');
        assert.equal(failed['failure_code'], 'simulated_failure');
        assert.ok(failed['closed_at'] !== null);
        assert.deepEqual(await ctx.t.eventTrail(p['id']), ['payment.pending@2', 'payment.failed@3']);
      });

      it('pending → expired by the sweeper at expires_at, once', async () => {
        const p = await create(channel);
        assert.equal(new Date(String(p['expires_at'])).getTime() - ctx.clock.now().getTime(), ttlMs);
        ctx.clock.advance(ttlMs - 1);
        await ctx.t.sweepExpired();
        assert.equal((await ctx.t.payment(p['id']))['status'], 'pending', 'not before expires_at');
        ctx.clock.advance(1);
        await ctx.t.sweepExpired();
        const expired = await ctx.t.payment(p['id']);
        assert.equal(expired['status'], 'expired');
        // The provider closed the charge too and says so; that notification is old news now.
        await ctx.t.deliverNotifications();
        assert.equal((await ctx.t.payment(p['id']))['version'], 3);
        assert.deepEqual(await ctx.t.eventTrail(p['id']), ['payment.pending@2', 'payment.expired@3']);
      });

      it('pending → canceled, closing the charge at the provider', async () => {
        const p = await create(channel);
        const res = await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`, {
          body: { cancellation_reason: 'abandoned' },
        });
        assert.equal(res.statusCode, 200, res.body);
        const canceled = json(res);
        assert.equal(canceled['status'], 'canceled');
        assert.equal(canceled['cancellation_reason'], 'abandoned');
        assert.deepEqual(await ctx.t.payment(p['id']), canceled);
        const provider = ctx.t.provider(connector);
        const reference = (
          await ctx.t.testStore.store.query<{ provider_reference: string }>(
            `SELECT provider_reference FROM payment_attempts WHERE payment_id = $1 AND status = 'canceled'`,
            [p['id']],
          )
        )[0]?.provider_reference;
        assert.equal(
          (provider?.get(String(reference)).body as { status: string }).status,
          provider === undefined ? '' : closedWord(connector),
        );
        await ctx.t.deliverNotifications();
        assert.deepEqual(await ctx.t.eventTrail(p['id']), ['payment.pending@2', 'payment.canceled@3']);
        const again = await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`);
        assert.equal(again.statusCode, 409);
        assert.equal(json(again)['code'], 'payment_state_conflict');
      });
    });
  }
});

function closedWord(connector: string): string {
  return { sandbox_bank: 'CLOSED', sandbox_ewallet: 'VOIDED', sandbox_counter: 'CANCELLED' }[connector] ?? '';
}
