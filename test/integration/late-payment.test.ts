import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { saveMerchantSettings } from '../../src/modules/merchants/merchant-settings.ts';
import { TEST_OPERATOR, appForSuite, json, quickStart, ref } from '../harness/test-app.ts';

/**
 * Money that arrives after the payment closed is recorded and handled by the merchant's
 * late-payment policy (accept or refund), never dropped (docs/payments.md, "Late payments").
 */
describe('late payments', () => {
  const ctx = appForSuite();

  const DAY_MS = 24 * 3_600_000;
  const policy = (latePaymentPolicy: 'accept' | 'refund') =>
    saveMerchantSettings(
      ctx.t.testStore.store,
      ctx.t.a.id,
      { late_payment_policy: latePaymentPolicy },
      TEST_OPERATOR,
      ctx.clock.now(),
    );
  const createBank = async (referenceNo = ref('late')) => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', reference_no: referenceNo }) });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  };
  const simulatePaid = async (id: unknown) => {
    const res = await ctx.t.call('POST', `/sandbox/payment/${String(id)}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(res.statusCode, 202, res.body);
  };
  const attempt = async (id: unknown) =>
    (
      await ctx.t.testStore.store.query<{ status: string; late_payment_resolution: string | null; amount_paid_minor: bigint }>(
        'SELECT status, late_payment_resolution, amount_paid_minor FROM payment_attempts WHERE payment_id = $1',
        [id],
      )
    )[0];

  it('policy "refund" (the default): a payment after cancel is recorded for refund; the payment stays canceled', async () => {
    await policy('refund');
    const p = await createBank();
    assert.equal((await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`)).statusCode, 200);
    await simulatePaid(p['id']);
    await ctx.t.deliverNotifications();
    const after = await ctx.t.payment(p['id']);
    assert.equal(after['status'], 'canceled');
    assert.equal(after['version'], 4);
    assert.deepEqual(after['late_payment'], {
      attempt_id: (after['routing'] as { attempts: { attempt_id: string }[] }).attempts[0]?.attempt_id,
      received_at: ctx.clock.now().toISOString(),
      amount: 150000,
      resolution: 'refund_required',
      reason: 'merchant_policy',
    });
    assert.deepEqual(await ctx.t.eventTrail(p['id']), [
      'payment.pending@2',
      'payment.canceled@3',
      'payment.late_payment_received@4',
    ]);
    assert.deepEqual(await attempt(p['id']), {
      status: 'canceled',
      late_payment_resolution: 'refund_required',
      amount_paid_minor: 15_000_000n,
    });
  });

  it('policy "accept": a payment after expiry makes the payment succeeded', async () => {
    await policy('accept');
    const p = await createBank();
    ctx.clock.advance(DAY_MS);
    await ctx.t.sweepExpired();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'expired');
    ctx.clock.advance(60_000);
    await simulatePaid(p['id']);
    await ctx.t.deliverNotifications();
    const after = await ctx.t.payment(p['id']);
    assert.equal(after['status'], 'succeeded');
    assert.equal(after['closed_at'], null);
    assert.equal((after['late_payment'] as { resolution: string; reason: string }).resolution, 'accepted');
    assert.equal((after['late_payment'] as { reason: string }).reason, 'merchant_policy');
    assert.deepEqual(await ctx.t.eventTrail(p['id']), ['payment.pending@2', 'payment.expired@3', 'payment.succeeded@4']);
    assert.equal((await attempt(p['id']))?.status, 'succeeded');
  });

  it('paid before the expiry but reported after it: accepted whatever the policy', async () => {
    await policy('refund');
    const p = await createBank();
    const bank = ctx.t.provider('sandbox_bank');
    // The payer pays an hour before the expiry; the provider's notification is held back, and at
    // the expiry the provider does not answer our close.
    bank.faults = { notifications: { mode: 'hold' } };
    ctx.clock.advance(DAY_MS - 3_600_000);
    await simulatePaid(p['id']);
    ctx.clock.advance(3_600_000);
    bank.faults = { close: { mode: 'error' }, notifications: { mode: 'hold' } };
    await ctx.t.sweepExpired();
    assert.equal((await ctx.t.payment(p['id']))['status'], 'expired');
    bank.faults = {};
    bank.release('queued');
    await ctx.t.deliverNotifications();
    const after = await ctx.t.payment(p['id']);
    assert.equal(after['status'], 'succeeded');
    assert.equal((after['late_payment'] as { reason: string }).reason, 'paid_before_expiry');
    assert.equal(after['succeeded_at'], new Date(Date.parse(String(p['created_at'])) + DAY_MS - 3_600_000).toISOString());
  });

  it('cannot accept when a newer live payment took the reference_no: refund required instead', async () => {
    await policy('accept');
    const referenceNo = ref('reused');
    const first = await createBank(referenceNo);
    assert.equal((await ctx.t.call('POST', `/payment/${String(first['id'])}/cancel`)).statusCode, 200);
    const second = await createBank(referenceNo);
    await simulatePaid(first['id']);
    await ctx.t.deliverNotifications();
    const after = await ctx.t.payment(first['id']);
    assert.equal(after['status'], 'canceled');
    assert.deepEqual(
      [(after['late_payment'] as { resolution: string }).resolution, (after['late_payment'] as { reason: string }).reason],
      ['refund_required', 'reference_no_reused'],
    );
    assert.equal((await ctx.t.payment(second['id']))['status'], 'pending');
  });

  it('a second late report of the same payment changes nothing', async () => {
    await policy('refund');
    const p = await createBank();
    assert.equal((await ctx.t.call('POST', `/payment/${String(p['id'])}/cancel`)).statusCode, 200);
    const bank = ctx.t.provider('sandbox_bank');
    bank.faults = { notifications: { mode: 'duplicate', remaining: 1 } };
    await simulatePaid(p['id']);
    await ctx.t.deliverNotifications();
    await ctx.t.syncStatuses();
    assert.deepEqual(await ctx.t.eventTrail(p['id']), [
      'payment.pending@2',
      'payment.canceled@3',
      'payment.late_payment_received@4',
    ]);
  });
});
