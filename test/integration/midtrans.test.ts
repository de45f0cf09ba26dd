import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importReportCommand } from '../../src/cli/settlement-import.ts';
import { createMidtransConnectors } from '../../src/connectors/midtrans/midtrans.connector.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createTestApp, json, quickStart, SUITE_START, type TestApp } from '../harness/test-app.ts';
import { startWebhookDelivery, type WebhookDelivery } from '../harness/webhook-delivery.ts';
import { signedBy } from '../harness/webhook-testbed.ts';
import { type MidtransSimulator, startMidtransSimulator } from '../simulators/midtrans/midtrans-simulator.ts';

/**
 * The Midtrans connectors inside Tributary, against the Midtrans simulator on loopback, with
 * production keys (PRODUCTION_CONNECTORS names both): create → the payer pays on the simulator →
 * Midtrans' signed notification → status query → payment.succeeded delivered to a loopback
 * webhook receiver; duplicates, forged notifications, Midtrans' error codes and a hung Midtrans.
 */
const SERVER_KEY = 'SB-Mid-server-integrationIntegration01';
const CONNECTOR_TIMEOUT_MS = 2_000;

describe('Midtrans connectors, end to end (production keys, loopback simulator)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let sim: MidtransSimulator;
  let delivery: WebhookDelivery;

  before(async () => {
    clock = new ManualClock(SUITE_START);
    sim = await startMidtransSimulator({ serverKey: SERVER_KEY, now: () => clock.now() });
    let appBase = '';
    const log = createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent');
    t = await createTestApp({
      clock,
      extraConnectors: createMidtransConnectors({
        baseUrl: sim.origin,
        serverKey: SERVER_KEY,
        log,
        // As in production: each charge names its connector's callback (X-Override-Notification).
        notificationUrl: (name) => `${appBase}/provider/${name}/callback`,
        http: { retryBackoffMs: 0, perTryTimeoutMs: 700 },
      }),
      productionConnectors: ['midtrans_bank', 'midtrans_counter'],
      connectorTimeoutMs: CONNECTOR_TIMEOUT_MS,
      webhookAllowlist: ['127.0.0.1'],
    });
    appBase = t.baseUrl;
    delivery = await startWebhookDelivery(t, clock, '/midtrans-hook');
  });

  after(async () => {
    await delivery.close();
    await sim.close();
    await t.close();
  });

  const bodies = new Map<string, Record<string, unknown>>();
  /** A create with a production key; a retry with the same Idempotency-Key re-sends the same body. */
  const create = async (channel: 'bank' | 'counter', idempotencyKey?: string) =>
    t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body:
        idempotencyKey === undefined
          ? quickStart({ channel })
          : (bodies.get(idempotencyKey) ?? bodies.set(idempotencyKey, quickStart({ channel })).get(idempotencyKey)),
      ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
    });
  const payment = async (id: string) => json(await t.call('GET', `/payment/${id}`, { key: t.a.productionKey }));
  const attemptsOf = (id: string) =>
    t.testStore.store.query<{ status: string; error_code: string | null; provider_reference: string | null; id: string }>(
      'SELECT id, status, error_code, provider_reference FROM payment_attempts WHERE payment_id = $1 ORDER BY seq',
      [id],
    );
  /** The payer pays at the bank / the store with the number Tributary showed them. */
  const payerPays = async (paymentNumber: string) => {
    const res = await fetch(`${sim.origin}/_simulator/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payment_number: paymentNumber }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  const callback = (connector: string, body: string) =>
    t.app.inject({
      method: 'POST',
      url: `/provider/${connector}/callback`,
      payload: body,
      headers: { 'content-type': 'application/json' },
    });

  for (const c of [
    { channel: 'bank' as const, connector: 'midtrans_bank', number: (i: Record<string, unknown>) => i['account_number'] },
    { channel: 'counter' as const, connector: 'midtrans_counter', number: (i: Record<string, unknown>) => i['payment_code'] },
  ]) {
    it(`${c.connector}: create → payer pays → signed notification → payment.succeeded delivered → settlement (imported report)`, async () => {
      const res = await create(c.channel);
      assert.equal(res.statusCode, 201, res.body);
      const created = json(res);
      const id = String(created['id']);
      assert.equal(created['status'], 'pending');
      const instructions = created['instructions'] as Record<string, unknown>;
      const [attempt] = await attemptsOf(id);
      assert.ok(attempt !== undefined && attempt.provider_reference !== null);
      const tx = sim.find(attempt.id);
      assert.ok(tx !== undefined, 'the attempt id is the Midtrans order_id');
      assert.equal(tx.gross_amount, '150000.00', 'IDR 150,000.00 is sent as 150000 whole rupiah');
      assert.equal(tx.transaction_id, attempt.provider_reference);
      assert.deepEqual([tx.custom_field1, tx.custom_field2, tx.custom_field3], [t.a.id, 'production', id]);
      assert.equal(c.number(instructions), tx.va_numbers?.[0]?.va_number ?? tx.payment_code);

      // Midtrans notified "pending" at the charge; the payer now pays with the number we showed.
      await payerPays(String(c.number(instructions)));
      const sent = await sim.deliverNotifications();
      assert.deepEqual(
        sent.map((s) => [new URL(s.url).pathname, s.status]),
        [
          [`/provider/${c.connector}/callback`, 200],
          [`/provider/${c.connector}/callback`, 200],
        ],
      );
      await t.deliverNotifications();
      const paid = await payment(id);
      assert.equal(paid['status'], 'succeeded');
      assert.deepEqual(await t.eventTypes(id), ['payment.pending', 'payment.succeeded']);

      await delivery.dispatcher.drain();
      const delivered = delivery.receiver.requests.filter((r) => {
        const e = JSON.parse(r.body) as { type?: string; data?: { object?: { id?: string } } };
        return e.type === 'payment.succeeded' && JSON.stringify(e).includes(id);
      });
      assert.equal(delivered.length, 1, 'payment.succeeded reached the merchant once');
      assert.ok(delivered[0] !== undefined && signedBy(delivery.endpointSecret, delivered[0]));

      // Settlement: Midtrans has no settlement report API (docs/connectors.md), so the connector
      // declares none and the ingestion skips it; the operator imports Midtrans' payout report.
      const ingest = await t.ingestSettlements(c.connector);
      assert.equal(ingest.connectors, 0);
      assert.equal((await payment(id))['settled_at'], null);
      const report = join(mkdtempSync(join(tmpdir(), 'midtrans-report-')), 'payout.csv');
      writeFileSync(
        report,
        'provider_reference,attempt_id,currency,gross,fee,net,settled_at\n' +
          `${tx.transaction_id},${attempt.id},IDR,150000.00,4000.00,146000.00,${clock.now().toISOString()}\n`,
      );
      const imported = await importReportCommand(
        {
          store: t.testStore.store,
          clock,
          log: createLogger('silent'),
          publicBaseUrl: 'http://127.0.0.1:8080',
          connectors: t.connectors,
          connectorTimeoutMs: CONNECTOR_TIMEOUT_MS,
        },
        c.connector,
        report,
      );
      assert.ok(imported.ok, imported.ok ? '' : imported.problem);
      const settled = await payment(id);
      assert.equal(settled['fee'], 4000);
      assert.equal(settled['net'], 146_000);
      const settlement = json(await t.call('GET', `/settlement/${String(settled['settlement_id'])}`, { key: t.a.productionKey }));
      assert.equal(settlement['connector'], c.connector);
      assert.equal(settlement['gross'], 150_000);
      assert.deepEqual((await t.eventTypes(id)).slice(-1), ['payment.settled']);
    });
  }

  it('a notification Midtrans sends twice, and a replay of it, change nothing twice', async () => {
    const res = await create('bank');
    assert.equal(res.statusCode, 201, res.body);
    const id = String(json(res)['id']);
    const va = String((json(res)['instructions'] as Record<string, unknown>)['account_number']);
    await sim.deliverNotifications(); // the pending one
    sim.duplicateNextNotification();
    await payerPays(va);
    const sent = await sim.deliverNotifications();
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.body, sent[1]?.body, 'the very same notification, twice');
    assert.deepEqual(
      sent.map((s) => s.status),
      [200, 200],
    );
    await t.deliverNotifications();
    const version = (await payment(id))['version'];

    const replay = await callback('midtrans_bank', sent[0]?.body ?? '');
    assert.equal(replay.statusCode, 200);
    assert.equal(json(replay)['duplicate'], true);
    await t.deliverNotifications();
    assert.equal((await payment(id))['version'], version);
    assert.deepEqual(await t.eventTypes(id), ['payment.pending', 'payment.succeeded']);
    const [attempt] = await attemptsOf(id);
    const stored = await t.testStore.store.query<{ n: bigint | string }>(
      "SELECT count(*) AS n FROM provider_notifications WHERE connector = 'midtrans_bank' AND provider_event_id LIKE $1",
      [`${String(attempt?.provider_reference)}:settlement:%`],
    );
    assert.equal(String(stored[0]?.n), '1', 'stored once');
  });

  it('refuses a notification with a wrong, tampered or missing signature_key (4xx) and stores nothing', async () => {
    const res = await create('bank');
    const id = String(json(res)['id']);
    const [attempt] = await attemptsOf(id);
    const tx = sim.find(String(attempt?.id));
    assert.ok(tx !== undefined);
    const count = async () =>
      String((await t.testStore.store.query<{ n: bigint | string }>('SELECT count(*) AS n FROM provider_notifications'))[0]?.n);
    const before = await count();
    const forged = { ...sim.render({ ...tx, transaction_status: 'settlement' }, '200') };
    forged['signature_key'] = sim.signature(tx.order_id, '200', tx.gross_amount, 'SB-Mid-server-notTheRightKeyAtAll000');
    const wrongKey = await callback('midtrans_bank', JSON.stringify(forged));
    assert.equal(wrongKey.statusCode, 401);
    assert.deepEqual(json(wrongKey)['details'], [{ issue: 'bad_signature' }]);

    const genuine = { ...forged, signature_key: sim.signature(tx.order_id, '200', tx.gross_amount) };
    const tampered = await callback('midtrans_bank', JSON.stringify({ ...genuine, gross_amount: '1.00' }));
    assert.equal(tampered.statusCode, 401);
    const { signature_key: _dropped, ...unsigned } = genuine;
    const missing = await callback('midtrans_bank', JSON.stringify(unsigned));
    assert.equal(missing.statusCode, 401);
    assert.deepEqual(json(missing)['details'], [{ issue: 'missing_signature' }]);
    assert.equal(await count(), before);

    // A correctly signed claim is only a trigger: Midtrans' status API (still pending) decides.
    const claim = await callback('midtrans_bank', JSON.stringify(genuine));
    assert.equal(claim.statusCode, 200, claim.body);
    await t.deliverNotifications();
    assert.equal((await payment(id))['status'], 'pending', 'the status API said pending, so nothing changed');
  });

  it("maps Midtrans' answers: 4xx is refused (attempt failed), 5xx/lost is unknown (the same order_id is re-sent)", async () => {
    // 402: the merchant's Midtrans account has no access to this payment type. Nothing exists there.
    const charges = sim.chargeCount;
    sim.answerNext('402', "Merchant doesn't have access for this payment type");
    const refusedRes = await create('bank', 'mt-refused-1');
    assert.equal(refusedRes.statusCode, 503, refusedRes.body);
    const refusedId = String((json(refusedRes)['details'] as { payment_id: string }[])[0]?.payment_id);
    assert.deepEqual(
      (await attemptsOf(refusedId)).map((a) => [a.status, a.error_code]),
      [['failed', 'midtrans_402']],
    );
    assert.equal(sim.chargeCount, charges);

    // 500 in the body of an HTTP 200: Midtrans failed; it may or may not have acted.
    sim.failNext(500, true);
    const unknownRes = await create('bank', 'mt-unknown-1');
    assert.equal(unknownRes.statusCode, 503, unknownRes.body);
    const unknownId = String((json(unknownRes)['details'] as { payment_id: string }[])[0]?.payment_id);
    assert.deepEqual(
      (await attemptsOf(unknownId)).map((a) => a.status),
      ['started'],
      'the attempt stays open, to be re-sent',
    );
    const retried = await create('bank', 'mt-unknown-1');
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(json(retried)['id'], unknownId);

    // The charge is made but its answer is lost: the retry (same order_id) gets 406, and the
    // connector reads the charge through the status API: one charge, the same VA.
    const before = sim.chargeCount;
    sim.loseNextAnswer();
    const lost = await create('bank', 'mt-lost-1');
    assert.equal(lost.statusCode, 201, lost.body);
    assert.equal(sim.chargeCount, before + 1, 'one charge at Midtrans');
    const [lostAttempt] = await attemptsOf(String(json(lost)['id']));
    const tx = sim.find(String(lostAttempt?.id));
    assert.equal((json(lost)['instructions'] as Record<string, unknown>)['account_number'], tx?.va_numbers?.[0]?.va_number);
    assert.deepEqual(
      sim.requests.slice(-3).map((r) => `${r.method} ${r.path.replace(String(lostAttempt?.id), '{order_id}')}`),
      ['POST /v2/charge', 'POST /v2/charge', 'GET /v2/{order_id}/status'],
    );
  });

  it('answers within a bound when Midtrans hangs, and leaves the attempt to be re-sent', async () => {
    sim.hangNext(3);
    const started = Date.now();
    const res = await create('bank', 'mt-hung-1');
    const elapsed = Date.now() - started;
    assert.equal(res.statusCode, 503, res.body);
    assert.ok(elapsed < CONNECTOR_TIMEOUT_MS + 2_000, `answered in ${elapsed} ms`);
    const id = String((json(res)['details'] as { payment_id: string }[])[0]?.payment_id);
    assert.deepEqual(
      (await attemptsOf(id)).map((a) => a.status),
      ['started'],
    );
  });
});
