import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { saveMerchantSettings } from '../../src/modules/merchants/merchant-settings.ts';
import { TEST_OPERATOR, appForSuite, json, quickStart, ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Money from a late payment the merchant does not get (resolution `refund_required`) is the
 * payer's: it enters the ledger as `payer_refund_due` and goes back through
 * `POST /payment/{id}/refund` with source `late_payment` (docs/money.md "Late payment money").
 */
describe(`late payment money (${TEST_STORE})`, () => {
  const ctx = appForSuite();
  const bank = () => ctx.t.provider('sandbox_bank');

  /** A bank payment of 150,000 IDR canceled, then paid late; merchant policy "refund". */
  const paidAfterCancel = async (): Promise<string> => {
    await saveMerchantSettings(
      ctx.t.testStore.store,
      ctx.t.a.id,
      { late_payment_policy: 'refund' },
      TEST_OPERATOR,
      ctx.clock.now(),
    );
    const res = await ctx.t.call('POST', '/payment/create', {
      body: quickStart({ channel: 'bank', reference_no: ref('latemoney') }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    assert.equal((await ctx.t.call('POST', `/payment/${id}/cancel`)).statusCode, 200);
    const sim = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(sim.statusCode, 202, sim.body);
    await ctx.t.deliverNotifications();
    const p = await ctx.t.payment(id);
    assert.equal(p['status'], 'canceled');
    assert.equal((p['late_payment'] as { resolution: string }).resolution, 'refund_required');
    return id;
  };
  const refund = (paymentId: string, body?: unknown) =>
    ctx.t.call('POST', `/payment/${paymentId}/refund`, body === undefined ? {} : { body });
  const balance = async () => {
    const res = await ctx.t.call('GET', '/balance?verify=true');
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res) as { balances: Record<string, number>[]; verification: { status: string } };
    assert.equal(body.verification.status, 'ok', res.body);
    const zero = { pending: 0, available: 0, refunds_in_flight: 0, owed_to_payers: 0 };
    return body.balances.find((b) => String(b['currency']) === 'IDR') ?? zero;
  };
  /** The payment's postings on one account, summed (credit-normal accounts are negative). */
  const posted = async (paymentId: string, account: string) =>
    (
      await ctx.t.testStore.store.query<{ s: bigint | null }>(
        `SELECT sum(p.amount_minor)::bigint AS s FROM postings p JOIN journal_entries e ON e.id = p.entry_id
          WHERE e.payment_id = $1 AND p.account_kind = $2`,
        [paymentId, account],
      )
    )[0]?.s ?? 0n;

  it('enters the ledger as owed to the payer, not as the merchant’s balance', async () => {
    const before = await balance();
    const id = await paidAfterCancel();
    const after = await balance();
    assert.equal(after['owed_to_payers'], before['owed_to_payers']! + 150_000);
    assert.equal(after['pending'], before['pending'], 'the merchant got nothing');
    assert.equal(await posted(id, 'payer_refund_due'), -15_000_000n);
    assert.equal(await posted(id, 'provider_receivable'), 15_000_000n);
    assert.equal(await posted(id, 'merchant_pending'), 0n);
    // Processing the same report again posts nothing more.
    await ctx.t.syncStatuses();
    assert.equal(await posted(id, 'payer_refund_due'), -15_000_000n);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('is refunded through the API: source late_payment by default, the payment stays canceled', async () => {
    const id = await paidAfterCancel();
    const before = await balance();
    const res = await refund(id);
    assert.equal(res.statusCode, 201, res.body);
    const r = json(res);
    assert.equal(r['source'], 'late_payment');
    assert.equal(r['amount'], 150_000);
    assert.equal(r['status'], 'pending');
    let b = await balance();
    assert.equal(b['owed_to_payers'], before['owed_to_payers']! - 150_000);
    assert.equal(b['refunds_in_flight'], before['refunds_in_flight']! + 150_000);
    await ctx.t.deliverNotifications();
    const done = json(await ctx.t.call('GET', `/refund/${String(r['id'])}`));
    assert.equal(done['status'], 'succeeded');
    assert.equal(done['source'], 'late_payment');
    b = await balance();
    assert.equal(b['owed_to_payers'], before['owed_to_payers']! - 150_000);
    assert.equal(b['refunds_in_flight'], before['refunds_in_flight']);
    assert.equal(b['pending'], before['pending']);
    const p = await ctx.t.payment(id);
    assert.equal(p['status'], 'canceled');
    assert.equal(p['amount_refunded'], 0, 'amount_refunded counts captured money only');
    assert.equal(await posted(id, 'payer_refund_due'), 0n);
    assert.equal(await posted(id, 'provider_receivable'), 0n, 'the provider gave the money back');
    assert.deepEqual(await ctx.t.eventTypes(r['id']), ['refund.succeeded']);
    const nothingLeft = await refund(id, { amount: 1 });
    assert.equal(nothingLeft.statusCode, 422);
    assert.equal(json(nothingLeft)['code'], 'refund_exceeds_captured');
  });

  it('in parts, never more than the late amount; a declined refund owes the money to the payer again', async () => {
    const id = await paidAfterCancel();
    const first = await refund(id, { amount: 100_000, source: 'late_payment' });
    assert.equal(first.statusCode, 201, first.body);
    const tooMuch = await refund(id, { amount: 50_001 });
    assert.equal(tooMuch.statusCode, 422);
    assert.equal((json(tooMuch)['details'] as Record<string, unknown>[])[0]?.['refundable'], 50_000);
    bank().faults = { refund: { mode: 'decline', remaining: 1 } };
    const declined = await refund(id, { amount: 50_000 });
    bank().faults = {};
    assert.equal(declined.statusCode, 201);
    assert.equal(json(declined)['status'], 'failed');
    assert.equal(await posted(id, 'payer_refund_due'), -5_000_000n, 'the declined 50,000 is owed again');
    const rest = await refund(id);
    assert.equal(rest.statusCode, 201, rest.body);
    assert.equal(json(rest)['amount'], 50_000);
    await ctx.t.deliverNotifications();
    assert.equal(await posted(id, 'payer_refund_due'), 0n);
    assert.deepEqual(await verifyLedger(ctx.t.testStore.store), []);
  });

  it('refuses a source the payment does not have (409) and changes nothing', async () => {
    const late = await paidAfterCancel();
    const wrongSource = await refund(late, { source: 'payment' });
    assert.equal(wrongSource.statusCode, 409);
    assert.equal(json(wrongSource)['code'], 'payment_state_conflict');
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
    const open = String(json(res)['id']);
    const none = await refund(open);
    assert.equal(none.statusCode, 409);
    assert.equal(json(none)['code'], 'payment_state_conflict');
    const bad = await refund(late, { source: 'somewhere' });
    assert.equal(bad.statusCode, 400);
    assert.equal(await posted(late, 'payer_refund_due'), -15_000_000n);
    const refunds = await ctx.t.testStore.store.query('SELECT id FROM refunds WHERE payment_id IN ($1, $2)', [late, open]);
    assert.equal(refunds.length, 0);
  });
});
