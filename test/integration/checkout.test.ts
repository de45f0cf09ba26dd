import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expireDueCheckouts } from '../../src/modules/checkouts/index.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { appForSuite, json, ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Checkouts (docs/checkout.md): the API, the payer's selection, completion, expiry, and the races
 * of section 5 (on PostgreSQL, where two requests really run at once).
 */
describe(`checkouts (${TEST_STORE})`, () => {
  const ctx = appForSuite({ webhookAllowlist: ['127.0.0.1'] });

  const body = (extra: Record<string, unknown> = {}) => ({
    amount: 150000.0,
    currency: 'IDR',
    reference_no: ref('cs'),
    email: 'payer@example.com',
    ...extra,
  });
  const create = async (extra: Record<string, unknown> = {}, key?: string) => {
    const res = await ctx.t.call('POST', '/checkout/create', {
      body: body(extra),
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Record<string, unknown> & { id: string; client_secret: string };
  };
  const select = (id: string, selection: Record<string, unknown>) =>
    ctx.t.call('POST', `/checkout/${id}/select`, { body: selection, key: null });
  const get = async (id: string) => json(await ctx.t.call('GET', `/checkout/${id}`));
  const payBank = async (paymentId: unknown) => {
    const res = await ctx.t.call('POST', `/sandbox/payment/${String(paymentId)}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(res.statusCode, 202, res.body);
    await ctx.t.deliverNotifications();
  };
  const checkoutEvents = async (id: string) =>
    (
      await ctx.t.testStore.store.query<{ type: string }>(
        'SELECT type FROM events WHERE object_id = $1 ORDER BY created_at, id',
        [id],
      )
    ).map((r) => r.type);
  const livePayments = async (ids: readonly unknown[]) =>
    (
      await ctx.t.testStore.store.query<{ id: string }>(
        `SELECT id FROM payments WHERE id = ANY($1::text[]) AND status IN ('processing', 'pending', 'succeeded')`,
        [ids.map(String)],
      )
    ).map((r) => r.id);

  it('creates an open checkout offering every servable channel; the secret only in the create answer; get and list', async () => {
    const c = await create({ description: 'Order 1', success_url: 'https://shop.example.com/thanks' });
    assert.match(c.id, /^cs_[0-9A-Z]{26}$/);
    assert.equal(c['object'], 'checkout');
    assert.equal(c['status'], 'open');
    assert.equal(c['url'], `${String(c['url']).split('/pay/')[0]}/pay/${c.id}`);
    assert.match(c.client_secret, new RegExp(`^${c.id}_secret_`));
    assert.deepEqual(c['channels'], ['bank', 'ewallet', 'counter']);
    assert.equal(c['payment'], null);
    assert.deepEqual(c['payments'], []);
    assert.equal(c['amount'], 150000);
    const got = await get(c.id);
    assert.equal(got['client_secret'], undefined, 'the secret is shown once');
    assert.equal(got['success_url'], 'https://shop.example.com/thanks');
    const list = json(await ctx.t.call('GET', '/checkout?limit=1'));
    assert.equal((list['data'] as { id: string }[])[0]?.id, c.id);
    const other = await ctx.t.call('GET', `/checkout/${c.id}`, { key: ctx.t.b.sandboxKey });
    assert.equal(other.statusCode, 404, "another merchant's checkout is not found");
    for (const key of [ctx.t.b.sandboxKey, ctx.t.a.productionKey]) {
      const expire = await ctx.t.call('POST', `/checkout/${c.id}/expire`, { key });
      assert.equal(expire.statusCode, 404, "another merchant's or environment's key cannot expire it");
    }
    assert.equal((await get(c.id))['status'], 'open');
  });

  it('replays a create with the same Idempotency-Key (same id and secret); refuses bad input with nothing stored', async () => {
    const key = ref('cs-key');
    const b = body();
    const first = json(await ctx.t.call('POST', '/checkout/create', { body: b, headers: { 'idempotency-key': key } }));
    const again = await ctx.t.call('POST', '/checkout/create', { body: b, headers: { 'idempotency-key': key } });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(json(again)['client_secret'], first['client_secret']);

    const before = await ctx.t.testStore.store.query('SELECT id FROM checkouts');
    for (const [bad, code] of [
      [{ channels: ['cash'] }, 'invalid_request'],
      [{ channels: [] }, 'invalid_request'],
      [{ expires_in: 10 }, 'invalid_request'],
      [{ amount: 10.001 }, 'invalid_request'],
      [{ success_url: 'javascript:alert(1)' }, 'invalid_request'],
      // A counter outlet takes at most IDR 5,000,000 in the sandbox.
      [{ amount: 9_000_000_000, channels: ['counter'] }, 'channel_unavailable'],
    ] as const) {
      const res = await ctx.t.call('POST', '/checkout/create', { body: body(bad) });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${JSON.stringify(bad)}: ${res.statusCode}`);
      assert.equal(json(res)['code'], code, `${JSON.stringify(bad)}: ${res.body}`);
    }
    const after = await ctx.t.testStore.store.query('SELECT id FROM checkouts');
    assert.equal(after.length, before.length, 'bad input changes nothing');
  });

  it('select: the payer chooses bank, then e-wallet (the bank payment is canceled); a wrong secret or channel changes nothing', async () => {
    const c = await create({ channels: ['bank', 'ewallet'] });
    const noSecret = await select(c.id, { client_secret: 'cs_wrong', channel: 'bank' });
    assert.equal(noSecret.statusCode, 401);
    assert.equal(json(noSecret)['code'], 'client_secret_invalid');
    const missing = await select(c.id, { channel: 'bank' });
    assert.equal(missing.statusCode, 400);
    const notOffered = await select(c.id, { client_secret: c.client_secret, channel: 'counter' });
    assert.equal(notOffered.statusCode, 422);
    assert.equal(json(notOffered)['code'], 'channel_not_offered');
    assert.deepEqual((await get(c.id))['payments'], [], 'refusals changed nothing');

    const bank = await select(c.id, { client_secret: c.client_secret, channel: 'bank' });
    assert.equal(bank.statusCode, 200, bank.body);
    const first = json(bank)['payment'] as Record<string, unknown>;
    assert.equal(first['status'], 'pending');
    assert.equal(first['channel'], 'bank');
    assert.equal((first['instructions'] as { type: string }).type, 'virtual_account');
    assert.equal(first['reference_no'], c['reference_no']);

    const wallet = await select(c.id, { client_secret: c.client_secret, channel: 'ewallet' });
    assert.equal(wallet.statusCode, 200, wallet.body);
    const second = json(wallet)['payment'] as Record<string, unknown>;
    assert.equal(second['channel'], 'ewallet');
    assert.equal((await ctx.t.payment(first['id']))['status'], 'canceled', 'the first payment was canceled at its provider');
    const now = await get(c.id);
    assert.equal(now['payment'], second['id']);
    assert.deepEqual(now['payments'], [first['id'], second['id']]);
  });

  it('select with an instrument: the payment uses that bank; an instrument nobody offers is refused', async () => {
    const c = await create({ channels: ['bank'] });
    const unknown = await select(c.id, { client_secret: c.client_secret, channel: 'bank', instrument: 'NOPE' });
    assert.equal(unknown.statusCode, 422);
    assert.deepEqual(
      (json(unknown)['details'] as { field: string }[]).map((d) => d.field),
      ['instrument'],
    );
    const bni = await select(c.id, { client_secret: c.client_secret, channel: 'bank', instrument: 'BNI' });
    assert.equal(bni.statusCode, 200, bni.body);
    const payment = json(bni)['payment'] as { payment_method: { instrument: string }; instructions: { bank_code: string } };
    assert.equal(payment.payment_method.instrument, 'BNI');
    assert.equal(payment.instructions.bank_code, 'BNI');
  });

  it('a payment that succeeds completes the checkout once (checkout.completed with the payment); nothing more can be selected', async () => {
    const c = await create({ channels: ['bank'] });
    const selected = json(await select(c.id, { client_secret: c.client_secret, channel: 'bank' }));
    const paymentId = (selected['payment'] as { id: string }).id;
    await payBank(paymentId);
    const done = await get(c.id);
    assert.equal(done['status'], 'completed');
    assert.equal(done['payment'], paymentId);
    assert.deepEqual(await checkoutEvents(c.id), ['checkout.completed']);
    const event = (
      await ctx.t.testStore.store.query<{ payload: { data: { object: { payment: { id: string; status: string } } } } }>(
        'SELECT payload FROM events WHERE object_id = $1',
        [c.id],
      )
    )[0]?.payload;
    assert.equal(event?.data.object.payment.id, paymentId);
    assert.equal(event?.data.object.payment.status, 'succeeded');

    const again = await select(c.id, { client_secret: c.client_secret, channel: 'bank' });
    assert.equal(again.statusCode, 409);
    assert.equal(json(again)['code'], 'checkout_not_open');
    const expire = await ctx.t.call('POST', `/checkout/${c.id}/expire`);
    assert.equal(expire.statusCode, 409);
    assert.deepEqual(await livePayments(done['payments'] as unknown[]), [paymentId]);
  });

  it('expire: the merchant ends it (checkout.expired), its pending payment is canceled; time does the same through the sweeper', async () => {
    const c = await create();
    const selected = json(await select(c.id, { client_secret: c.client_secret, channel: 'bank' }));
    const expired = await ctx.t.call('POST', `/checkout/${c.id}/expire`);
    assert.equal(expired.statusCode, 200, expired.body);
    assert.equal(json(expired)['status'], 'expired');
    assert.equal((await ctx.t.payment((selected['payment'] as { id: string }).id))['status'], 'canceled');
    assert.deepEqual(await checkoutEvents(c.id), ['checkout.expired']);
    const twice = await ctx.t.call('POST', `/checkout/${c.id}/expire`);
    assert.equal(twice.statusCode, 200, 'expiring an expired checkout answers it unchanged');
    assert.equal(json(twice)['version'], json(expired)['version']);
    const late = await select(c.id, { client_secret: c.client_secret, channel: 'bank' });
    assert.equal(late.statusCode, 409);

    const timed = await create({ expires_in: 300 });
    ctx.clock.advance(301_000);
    const tooLate = await select(timed.id, { client_secret: timed.client_secret, channel: 'bank' });
    assert.equal(tooLate.statusCode, 409, 'past expires_at nothing is selected, even before the sweeper ran');
    const deps = { ...ctx.t.createDeps, cancelPayment: ctx.t.createDeps };
    assert.ok((await expireDueCheckouts(deps, 100)) >= 1);
    assert.equal((await get(timed.id))['status'], 'expired');
    assert.deepEqual(await checkoutEvents(timed.id), ['checkout.expired']);
  });

  describe('races', { skip: TEST_STORE === 'postgres' ? false : 'concurrency is proved on PostgreSQL' }, () => {
    it('two selections at once: one holds the checkout, the other is told to retry; never two live payments', async () => {
      // Deterministic overlap: the first selection's provider call is held until the second has answered.
      let release = () => undefined as void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const c = await create();
      ctx.t.provider('sandbox_bank').faults = { create: { mode: 'latency', until: held, remaining: 1 } };
      const first = select(c.id, { client_secret: c.client_secret, channel: 'bank' });
      const leased = async () =>
        (
          await ctx.t.testStore.store.query<{ token: string | null }>(
            'SELECT select_lease_token AS token FROM checkouts WHERE id = $1',
            [c.id],
          )
        )[0]?.token != null;
      for (let waited = 0; !(await leased()); waited += 10) {
        assert.ok(waited < 10_000, 'the first selection took the lease');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const second = await select(c.id, { client_secret: c.client_secret, channel: 'ewallet' });
      assert.equal(second.statusCode, 409, second.body);
      assert.equal(json(second)['code'], 'checkout_busy');
      assert.ok(Number(second.headers['retry-after']) >= 1);
      release();
      assert.equal((await first).statusCode, 200);
      ctx.t.provider('sandbox_bank').faults = {};

      // Undirected: whichever order they run in, the checkout never has two live payments.
      for (let round = 0; round < 5; round += 1) {
        const r = await create();
        const answers = await Promise.all([
          select(r.id, { client_secret: r.client_secret, channel: 'bank' }),
          select(r.id, { client_secret: r.client_secret, channel: 'ewallet' }),
        ]);
        for (const a of answers) {
          assert.ok(a.statusCode === 200 || json(a)['code'] === 'checkout_busy', a.body);
        }
        const now = await get(r.id);
        assert.deepEqual(await livePayments(now['payments'] as unknown[]), [now['payment']], 'one live payment: the current one');
      }
    });

    it('a selection while the checkout expires: the checkout ends expired with no payment left open', async () => {
      for (let round = 0; round < 5; round += 1) {
        const c = await create();
        const [chosen, expired] = await Promise.all([
          select(c.id, { client_secret: c.client_secret, channel: 'bank' }),
          ctx.t.call('POST', `/checkout/${c.id}/expire`),
        ]);
        assert.equal(expired.statusCode, 200, expired.body);
        assert.ok([200, 409].includes(chosen.statusCode), chosen.body);
        const now = await get(c.id);
        assert.equal(now['status'], 'expired');
        assert.deepEqual(await livePayments(now['payments'] as unknown[]), [], 'no payment of an expired checkout stays open');
        assert.deepEqual(await checkoutEvents(c.id), ['checkout.expired']);
      }
    });

    it('two payments of one checkout paid at once: one completes it, the other money is late and refundable; the ledger holds', async () => {
      const c = await create();
      const first = (json(await select(c.id, { client_secret: c.client_secret, channel: 'bank' }))['payment'] as { id: string })
        .id;
      const second = (
        json(await select(c.id, { client_secret: c.client_secret, channel: 'ewallet' }))['payment'] as { id: string }
      ).id;
      // Both payers pay at their providers; the notifications are processed side by side.
      for (const id of [first, second]) {
        const res = await ctx.t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } });
        assert.equal(res.statusCode, 202, res.body);
      }
      await Promise.all([ctx.t.deliverNotifications(), ctx.t.deliverNotifications()]);
      await ctx.t.deliverNotifications();
      const done = await get(c.id);
      assert.equal(done['status'], 'completed');
      assert.equal(done['payment'], second);
      assert.deepEqual(await checkoutEvents(c.id), ['checkout.completed'], 'exactly one checkout.completed');
      const late = await ctx.t.payment(first);
      assert.equal(late['status'], 'canceled');
      assert.equal((late['late_payment'] as { resolution: string }).resolution, 'refund_required');
      const refund = await ctx.t.call('POST', `/payment/${first}/refund`, { body: {} });
      assert.equal(refund.statusCode, 201, `the late money is refundable: ${refund.body}`);
      assert.deepEqual(await verifyLedger(ctx.t.testStore.store, { merchantId: ctx.t.a.id, environment: 'sandbox' }), []);
    });
  });
});
