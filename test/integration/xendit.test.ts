import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChargeRequest, Connector } from '../../src/connectors/core/connector.ts';
import { createXenditConnectors } from '../../src/connectors/xendit/xendit-connectors.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, TEST_STORE, type TestStore } from '../harness/test-store.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../harness/webhook-delivery.ts';
import { type CallbackKind, startXenditSimulator, type XenditSimulator } from '../simulators/xendit/xendit-simulator.ts';

/**
 * The Xendit family end to end, against the loopback Xendit simulator: a production key creates a
 * payment on each channel, the payer pays on the simulator, Xendit's token-authenticated callback
 * reaches POST /provider/{connector}/callback, the status query confirms it, payment.succeeded is
 * delivered to a loopback webhook receiver, and Xendit's settlement (Transactions API) becomes a
 * Tributary settlement. Also: duplicate callbacks, forged tokens, error codes, a hung provider.
 */
const SECRET_KEY = 'xnd_production_integrationIntegration0001';
const TOKEN = 'xendit-callback-token-integration-0001';
const CONNECTOR_OF: Record<CallbackKind, string> = {
  virtual_account: 'xendit_bank',
  retail_outlet: 'xendit_counter',
  ewallet: 'xendit_ewallet',
};
const CHANNELS = [
  // amount 150,000 IDR; fees: VA 4,000 + VAT 440; retail 5,000 + VAT 550; e-wallet 1.5% = 2,250 + VAT 248
  { channel: 'bank', connector: 'xendit_bank', fee: 4_440 },
  { channel: 'counter', connector: 'xendit_counter', fee: 5_550 },
  { channel: 'ewallet', connector: 'xendit_ewallet', fee: 2_498 },
] as const;

describe(`xendit connectors end to end (${TEST_STORE})`, () => {
  let shared: TestStore;
  let t: TestApp;
  let sim: XenditSimulator;
  let delivery: WebhookDelivery;
  let connectors: Connector[];
  const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
  let refCounter = 0;

  before(async () => {
    shared = await openTestStore();
    let baseUrl = '';
    sim = await startXenditSimulator({
      secretKey: SECRET_KEY,
      callbackToken: TOKEN,
      now: () => clock.now(),
      callbackUrl: (kind) => `${baseUrl}/provider/${CONNECTOR_OF[kind]}/callback`,
    });
    connectors = createXenditConnectors({
      baseUrl: sim.url,
      secretKey: SECRET_KEY,
      callbackTokens: [TOKEN],
      payerReturnUrl: (paymentId) => `http://127.0.0.1:8080/pay/${paymentId}`,
      log: createLogger('silent'),
      http: { retryBackoffMs: 0, perTryTimeoutMs: 1_000 },
    });
    t = await createTestApp({
      testStore: shared,
      clock,
      connectors,
      productionConnectors: connectors.map((c) => c.capabilities.connector),
      webhookAllowlist: ['127.0.0.1'],
      connectorTimeoutMs: 2_000,
    });
    baseUrl = t.baseUrl;
    delivery = await startWebhookDelivery(t, clock, '/xendit');
  });

  after(async () => {
    await delivery.close();
    await sim.close();
    await t.close();
    await shared.close();
  });

  const live = (path: string) => t.call('GET', path, { key: t.a.productionKey });
  const create = async (channel: string, overrides: Record<string, unknown> = {}) => {
    refCounter += 1;
    const reference = `xendit-order-${refCounter}-${Date.now()}`;
    const res = await t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body: quickStart({ channel, reference_no: reference, ...overrides }),
      headers: { 'idempotency-key': `create-${reference}` },
    });
    assert.equal(res.statusCode, 201, res.body);
    const body = json(res);
    const [attempt] = await shared.store.query<{ id: string; connector: string; provider_reference: string }>(
      'SELECT id, connector, provider_reference FROM payment_attempts WHERE payment_id = $1',
      [body['id']],
    );
    assert.ok(attempt !== undefined);
    return { id: String(body['id']), body, attempt };
  };
  const basicAuth = `Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`;
  const simPost = async (path: string, body: unknown) => {
    const res = await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { authorization: basicAuth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** The payer pays on the simulator, as Xendit's test mode lets a tester do. */
  const pay = async (connector: string, reference: string) => {
    if (connector === 'xendit_bank') {
      const va = sim.vas.get(reference);
      assert.ok(va !== undefined);
      const res = await simPost(`/callback_virtual_accounts/external_id=${va.external_id}/simulate_payment`, {
        amount: va.expected_amount,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } else if (connector === 'xendit_counter') {
      const code = sim.codes.get(reference);
      assert.ok(code !== undefined);
      const res = await simPost('/fixed_payment_code/simulate_payment', {
        retail_outlet_name: code.retail_outlet_name,
        payment_code: code.payment_code,
        transfer_amount: code.expected_amount,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } else {
      sim.payEwallet(reference);
    }
    await sim.flushCallbacks();
  };
  const eventsOf = async (paymentId: string) =>
    (
      await shared.store.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1 ORDER BY object_version', [
        paymentId,
      ])
    ).map((r) => r.type);

  for (const subject of CHANNELS) {
    it(`${subject.channel}: create → payer pays → callback → payment.succeeded delivered → settlement`, async () => {
      const p = await create(subject.channel);
      assert.equal(p.attempt.connector, subject.connector);
      assert.equal(p.body['status'], 'pending');
      const instructions = p.body['instructions'] as Record<string, unknown>;
      assert.equal(instructions['type'], { bank: 'virtual_account', counter: 'counter', ewallet: 'ewallet' }[subject.channel]);

      const sentBefore = sim.sentCallbacks.length;
      await pay(subject.connector, p.attempt.provider_reference);
      const sent = sim.sentCallbacks.slice(sentBefore);
      assert.equal(sent.length, 1);
      assert.equal(sent[0]?.status, 200, 'Tributary acknowledged the callback');
      await t.deliverNotifications();

      const paid = json(await live(`/payment/${p.id}`));
      assert.equal(paid['status'], 'succeeded');

      await delivery.dispatcher.drain();
      const delivered = delivery.receiver.requests
        .map((r) => JSON.parse(r.body) as { type: string; data: { id?: string; object?: { id?: string } } })
        .filter((e) => e.type === 'payment.succeeded' && (e.data.id === p.id || e.data.object?.id === p.id));
      assert.equal(delivered.length, 1, 'payment.succeeded reached the merchant');

      sim.settle(p.attempt.provider_reference);
      const summary = await t.ingestSettlements(subject.connector);
      assert.equal(summary.settlements.length, 1, JSON.stringify(summary));
      const settled = json(await live(`/payment/${p.id}`));
      assert.match(String(settled['settlement_id']), /^stl_/);
      const settlement = json(await live(`/settlement/${String(settled['settlement_id'])}`));
      assert.equal(settlement['connector'], subject.connector);
      assert.equal(settlement['gross'], 150000);
      assert.equal(settlement['fee'], subject.fee);
      assert.equal(settlement['net'], 150000 - subject.fee);
    });
  }

  it('a duplicated callback is acknowledged twice and changes the payment once', async () => {
    const p = await create('bank');
    sim.duplicateNextCallback();
    const before = sim.sentCallbacks.length;
    await pay('xendit_bank', p.attempt.provider_reference);
    const sent = sim.sentCallbacks.slice(before);
    assert.equal(sent.length, 2);
    assert.deepEqual(
      sent.map((s) => s.status),
      [200, 200],
    );
    // Once more by hand: the same bytes, acknowledged as a duplicate.
    const again = await t.call('POST', '/provider/xendit_bank/callback', {
      key: null,
      rawBody: sent[0]?.rawBody ?? '',
      headers: { 'content-type': 'application/json', 'x-callback-token': TOKEN },
    });
    assert.equal(again.statusCode, 200);
    assert.equal(json(again)['duplicate'], true);
    await t.deliverNotifications();
    const rows = await shared.store.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM provider_notifications WHERE connector = 'xendit_bank' AND provider_event_id LIKE $1",
      [`fva_payment:${p.attempt.id}%`],
    );
    assert.equal(Number(rows[0]?.n), 1, 'stored once');
    assert.equal(json(await live(`/payment/${p.id}`))['status'], 'succeeded');
    assert.deepEqual(await eventsOf(p.id), ['payment.pending', 'payment.succeeded']);
  });

  it('a forged or missing callback token is refused (401) and stores nothing', async () => {
    const p = await create('counter');
    const body = JSON.stringify({
      id: 'forged',
      external_id: p.attempt.id,
      fixed_payment_code_id: p.attempt.provider_reference,
      payment_id: 'forged-payment',
      amount: 150000,
      status: 'COMPLETED',
      transaction_timestamp: clock.now().toISOString(),
    });
    for (const headers of [{ 'x-callback-token': 'guessed-token-guessed-token-000001' }, {}]) {
      const res = await t.call('POST', '/provider/xendit_counter/callback', {
        key: null,
        rawBody: body,
        headers: { 'content-type': 'application/json', ...headers },
      });
      assert.equal(res.statusCode, 401);
    }
    const rows = await shared.store.query('SELECT 1 FROM provider_notifications WHERE provider_event_id = $1', [
      'fpc_payment:forged-payment',
    ]);
    assert.equal(rows.length, 0);
    // A correct token with a false claim is only a trigger: Xendit says the code is unpaid.
    const claimed = await t.call('POST', '/provider/xendit_counter/callback', {
      key: null,
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-callback-token': TOKEN },
    });
    assert.equal(claimed.statusCode, 200);
    await t.deliverNotifications();
    assert.equal(json(await live(`/payment/${p.id}`))['status'], 'pending');
  });

  it("Xendit's error codes become refused (definite) or unknown (maybe acted)", async () => {
    const bank = connectors.find((c) => c.capabilities.connector === 'xendit_bank') as Connector;
    const request = (overrides: Partial<ChargeRequest> = {}): ChargeRequest => ({
      attemptId: `att_xendit_${(refCounter += 1)}`,
      paymentId: `pay_xendit_${refCounter}`,
      merchantId: t.a.id,
      merchantName: 'Toko Xendit',
      environment: 'production',
      amountMinor: 15_000_000n,
      currency: 'IDR' as CurrencyCode,
      instrument: 'BCA',
      referenceNo: `r-${refCounter}`,
      description: null,
      email: null,
      expiresAt: new Date(clock.now().getTime() + 3_600_000),
      ...overrides,
    });
    const ctx = () => ({ signal: AbortSignal.timeout(3_000), now: clock.now() });

    const unsupported = await bank.createCharge(request({ instrument: 'NOT_A_BANK' }), ctx());
    assert.deepEqual([unsupported.kind, 'code' in unsupported ? unsupported.code : ''], ['refused', 'bank_not_supported_error']);

    const [wrongKey] = createXenditConnectors({
      baseUrl: sim.url,
      secretKey: 'xnd_production_wrongWrongWrong',
      callbackTokens: [TOKEN],
      payerReturnUrl: () => 'http://127.0.0.1/',
      log: createLogger('silent'),
      http: { retryBackoffMs: 0 },
    });
    const unauthorised = await wrongKey?.createCharge(request(), ctx());
    assert.deepEqual(
      [unauthorised?.kind, unauthorised && 'code' in unauthorised ? unauthorised.code : ''],
      ['refused', 'invalid_api_key'],
    );

    const cents = await bank.createCharge(request({ amountMinor: 15_000_050n }), ctx());
    assert.deepEqual([cents.kind, 'code' in cents ? cents.code : ''], ['refused', 'amount_not_whole_rupiah']);

    // 503 and 429: retried with the same idempotency key; still failing, the answer is unknown.
    for (const status of [503, 429] as const) {
      const count = sim.chargeCount();
      sim.failNext(status, 3);
      const outcome = await bank.createCharge(request(), ctx());
      assert.deepEqual([outcome.kind, 'code' in outcome ? outcome.code : ''], ['unknown', 'provider_error']);
      assert.equal(sim.chargeCount(), count, 'nothing was made');
    }
    // One 503, then the retry (same X-IDEMPOTENCY-KEY) succeeds.
    sim.failNext(503, 1);
    const retried = await bank.createCharge(request(), ctx());
    assert.equal(retried.kind, 'issued');

    // The same idempotency key with another body: 409 → something exists, so unknown, not refused.
    const r = request();
    assert.equal((await bank.createCharge(r, ctx())).kind, 'issued');
    const conflict = await bank.createCharge({ ...r, amountMinor: 20_000_000n }, ctx());
    assert.deepEqual([conflict.kind, 'code' in conflict ? conflict.code : ''], ['unknown', 'duplicate_transaction_error']);

    // Query: an unknown VA is not_found (CALLBACK_VIRTUAL_ACCOUNT_NOT_FOUND_ERROR).
    const missing = await bank.queryCharge({ attemptId: 'att_x', providerReference: 'ffffffffffffffffffffffff' }, ctx());
    assert.equal(missing.kind, 'not_found');
  });

  it('a hung Xendit gives a bounded answer, and a re-sent create finds the same account', async () => {
    sim.hangNext(10, (method, path) => method === 'POST' && path === '/callback_virtual_accounts');
    const started = Date.now();
    refCounter += 1;
    const reference = `xendit-hung-${refCounter}`;
    const res = await t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body: quickStart({ channel: 'bank', reference_no: reference }),
      headers: { 'idempotency-key': `create-${reference}` },
    });
    const elapsedMs = Date.now() - started;
    assert.ok(elapsedMs < 2_000 + 3_000, `answered in ${elapsedMs} ms`);
    assert.notEqual(res.statusCode, 201, 'no instructions were invented');
    assert.ok(res.statusCode >= 200 && res.statusCode < 600);
    const body = json(res);
    assert.ok(typeof body['code'] === 'string' || typeof body['status'] === 'string', res.body);
    assert.equal(res.statusCode, 503);
    assert.equal(body['code'], 'provider_unavailable');
    const paymentId = (body['details'] as { payment_id?: string }[])[0]?.payment_id;

    // Xendit answers again; the merchant retries with the same Idempotency-Key: the same payment,
    // and one virtual account for its attempt (the hung tries made none).
    sim.hangNext(0);
    const again = await t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body: quickStart({ channel: 'bank', reference_no: reference }),
      headers: { 'idempotency-key': `create-${reference}` },
    });
    assert.equal(again.statusCode, 201, again.body);
    assert.equal(json(again)['id'], paymentId);
    const [attempt] = await shared.store.query<{ id: string }>(
      'SELECT id FROM payment_attempts WHERE payment_id = $1 AND provider_reference IS NOT NULL',
      [paymentId],
    );
    assert.ok(attempt !== undefined);
    assert.equal([...sim.vas.values()].filter((v) => v.external_id === attempt.id).length, 1);
  });
});
