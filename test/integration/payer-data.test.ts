import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventObjectTemplate } from '../../src/catalogue/event-examples.ts';
import type { Queryable } from '../../src/db/store.ts';
import { createDispatcher, type Dispatcher } from '../../src/jobs/webhook-dispatcher.ts';
import { payerDataRetentionJob } from '../../src/jobs/payer-data-retention.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { timestampedSignatureHeader } from '../../src/lib/hmac-signature.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { Allowlist } from '../../src/lib/net/address-policy.ts';
import { createOutboundClient } from '../../src/lib/net/outbound-http.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { DEFAULT_DISABLE_AFTER_MS } from '../../src/modules/webhooks/delivery-service.ts';
import { SECRET_BOX_PURPOSE } from '../../src/modules/webhooks/webhook-secrets.ts';
import { sandboxCredentials } from '../../src/sandbox/sandbox-secrets.ts';
import { captureLogs } from '../harness/log-capture.ts';
import { createTestApp, json, ref, SUITE_START, TEST_SECRET, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';
import { type Receiver, startReceiver } from '../harness/webhook-receiver.ts';

/**
 * Payer data (docs/payer-data.md): e-mails that came in through every path — payment create (with
 * an Idempotency-Key, a callback URL, a description and metadata mentioning it), a checkout's
 * selections, a provider notification carrying the payer's name and phone, webhook endpoints that
 * echoed the e-mail back — are erased by the endpoint and by the retention job, from every table
 * (a generic scan over information_schema) and every later API answer, and nothing else changes.
 */
describe(`payer data erasure (${TEST_STORE})`, () => {
  const DAY_MS = 86_400_000;
  const RETENTION_DAYS = 30;
  const E1 = 'Alice.Payer+1@example.com'; // a payment, erased by the endpoint
  const E2 = 'bob.checkout@example.org'; // a checkout with two payments, erased by the job
  const E3 = 'carol.pending@example.net'; // a pending payment: never erased
  const E4 = 'dave.expired@example.com'; // an expired payment, erased by the job
  const PAYER_NAME = 'Alice Providername';
  const PAYER_PHONE = '+6281234567890';
  const ERASED = [E1, E2, E4, PAYER_NAME, PAYER_PHONE];

  let t: TestApp;
  let clock: ManualClock;
  let receiver: Receiver;
  let dispatcher: Dispatcher;
  let http: ReturnType<typeof createOutboundClient>;
  const logs = captureLogs();
  const ids: {
    p1: string;
    cs: string;
    csPayments: string[];
    p3: string;
    p4: string;
    pB: string;
    create1Key: string;
    create1Body: Record<string, unknown>;
  } = {
    p1: '',
    cs: '',
    csPayments: [],
    p3: '',
    p4: '',
    pB: '',
    create1Key: `pd-${ref()}`,
    create1Body: {},
  };
  const store = (): Queryable => t.testStore.store;

  before(async () => {
    clock = new ManualClock(SUITE_START);
    t = await createTestApp({ clock, webhookAllowlist: ['127.0.0.1'], log: logs.log });
    receiver = await startReceiver();
    // A receiver that answers with the payer's e-mail it received: our stored copy of its answer
    // (GET /event/{id}/deliveries) then holds the e-mail too.
    receiver.respond = (r) => {
      const object = (JSON.parse(r.body) as { data: { object: Record<string, unknown> } }).data.object;
      const payment = typeof object['payment'] === 'object' && object['payment'] !== null ? object['payment'] : object;
      return { status: 200, body: `thanks ${String((payment as Record<string, unknown>)['email'])}` };
    };
    http = createOutboundClient({ allowlist: new Allowlist(['127.0.0.1']), maxSocketsPerHost: 8, maxSockets: 16 });
    dispatcher = createDispatcher({
      store: t.testStore.store,
      clock,
      log: logs.log,
      secretBox: createSecretBox(TEST_SECRET, SECRET_BOX_PURPOSE),
      eventObjectTemplate,
      http,
      random: () => 0.5,
      timeoutMs: 3_000,
      connectTimeoutMs: 1_000,
      leaseMs: 60_000,
      disableAfterMs: DEFAULT_DISABLE_AFTER_MS,
      concurrency: 4,
      perTargetConcurrency: 4,
      pollIntervalMs: 20,
    });
    const endpoint = await t.call('POST', '/webhook_endpoint/create', { body: { url: receiver.url('/hooks') } });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
  });
  after(async () => {
    await dispatcher.stop();
    http.close();
    await receiver.close();
    await t.close();
  });

  const createPayment = async (fields: Record<string, unknown>, key?: string, apiKey?: string) => {
    const body = { amount: 150000.0, currency: 'IDR', reference_no: ref('pd'), ...fields };
    if (key === ids.create1Key) ids.create1Body = body;
    const res = await t.call('POST', '/payment/create', {
      body,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      ...(apiKey === undefined ? {} : { key: apiKey }),
    });
    assert.equal(res.statusCode, 201, res.body);
    return String(json(res)['id']);
  };
  const providerReference = async (paymentId: string) => {
    const [row] = await store().query<{ provider_reference: string }>(
      "SELECT provider_reference FROM payment_attempts WHERE payment_id = $1 AND status <> 'failed' ORDER BY seq DESC LIMIT 1",
      [paymentId],
    );
    assert.ok(row !== undefined);
    return row.provider_reference;
  };
  const simulate = async (paymentId: string, outcome: string, apiKey?: string) => {
    const res = await t.call('POST', `/sandbox/payment/${paymentId}/simulate`, {
      body: { outcome },
      ...(apiKey === undefined ? {} : { key: apiKey }),
    });
    assert.equal(res.statusCode, 202, res.body);
    await t.deliverNotifications();
  };
  const erase = (id: string, key?: string, body?: unknown) =>
    t.call('POST', `/payment/${id}/erase_payer_data`, {
      ...(key === undefined ? {} : { key }),
      ...(body === undefined ? {} : { body }),
    });
  const runJob = () => payerDataRetentionJob({ store: t.testStore.store, clock, retentionDays: RETENTION_DAYS }).run();

  /** Every base table of the schema, as sorted JSON rows. */
  const tables = async () =>
    (
      await store().query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
          ORDER BY table_name`,
      )
    ).map((r) => r.table_name);

  /**
   * A digest of everything: every row of every table, with the erased strings normalised the way
   * the erasure writes them (`"email": …` → null, an e-mail in text → `[erased]`), and without the
   * columns the erasure legitimately moves (a payment's and checkout's version, updated_at and
   * payer_data_erased_at; a notification's erased raw body, compared on its own). So "before,
   * normalised" equal to "after" means nothing else changed, in any table.
   */
  const digest = async (normalise: readonly string[] = []) => {
    const out: Record<string, string[]> = {};
    for (const table of await tables()) {
      const rows = await store().query<{ r: Record<string, unknown> }>(`SELECT to_jsonb(x) AS r FROM "${table}" x`);
      out[table] = rows
        .map(({ r }) => {
          const row = { ...r };
          if (table === 'payments' || table === 'checkouts') {
            delete row['version'];
            delete row['updated_at'];
            delete row['payer_data_erased_at'];
          }
          if (table === 'provider_notifications') {
            delete row['raw_body'];
            delete row['payer_data_erased_at'];
          }
          let text = JSON.stringify(row);
          if (normalise.length > 0) {
            for (const e of normalise) text = text.replace(new RegExp(e.replace(/[.+]/g, '\\$&'), 'gi'), '[erased]');
            text = text
              .replace(/"email":"\[erased\]"/g, '"email":null')
              .replace(/\\"email\\":\\"\[erased\]\\"/g, '\\"email\\":null');
          }
          return text;
        })
        .sort();
    }
    return out;
  };

  /** Every text-like column of every table that contains one of `needles` (case-insensitive). */
  const scan = async (needles: readonly string[]) => {
    const columns = await store().query<{ table_name: string; column_name: string }>(
      `SELECT c.table_name, c.column_name FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
          AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'character')`,
    );
    assert.ok(columns.length > 20, 'the scan sees the schema');
    const found: string[] = [];
    for (const { table_name, column_name } of columns) {
      for (const needle of needles) {
        const rows = await store().query<{ n: bigint }>(
          `SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE '%' || $1 || '%'`,
          [needle],
        );
        if (Number(rows[0]?.n ?? 0) > 0) found.push(`${table_name}.${column_name}: ${needle}`);
      }
    }
    return found;
  };

  const apiAnswers = async (paymentIds: readonly string[], checkoutId: string) => {
    const bodies: string[] = [];
    const get = async (url: string) => {
      const res = await t.call('GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      bodies.push(res.body);
      return json(res);
    };
    for (const id of [...paymentIds, checkoutId]) {
      if (id.startsWith('pay_')) await get(`/payment/${id}`);
      const events = (await get(`/event?object_id=${id}&limit=100`))['data'] as { id: string }[];
      assert.ok(events.length > 0, `${id} has events`);
      for (const e of events) {
        await get(`/event/${e.id}`);
        await get(`/event/${e.id}/deliveries`);
      }
    }
    await get('/payment?limit=100');
    await get(`/checkout/${checkoutId}`);
    await get('/checkout?limit=100');
    // The same request again: answered from the stored response, which is erased too.
    const replay = await t.call('POST', '/payment/create', {
      body: ids.create1Body,
      headers: { 'idempotency-key': ids.create1Key },
    });
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(json(replay)['id'], ids.p1);
    assert.equal(json(replay)['email'], null);
    bodies.push(replay.body);
    return bodies.join('\n');
  };

  it('stores the e-mails through every path (the scan finds them first)', async () => {
    // 1. A payment with a key, a callback URL, the e-mail in its description and metadata; paid
    //    through a provider notification that carries the payer's name and phone number.
    ids.p1 = await createPayment(
      {
        channel: 'bank',
        email: E1,
        description: `Order 1001 for ${E1}`,
        metadata: { order: '1001', contact: E1.toLowerCase() },
        callback_url: receiver.url('/callback'),
      },
      ids.create1Key,
    );
    const bank = t.provider('sandbox_bank');
    bank.faults = { notifications: { mode: 'drop', remaining: 1 } };
    const reply = bank.simulate(await providerReference(ids.p1), 'pay', undefined);
    assert.equal(reply.status, 200);
    const body = JSON.stringify({
      id: `sbva_evt_payer_${ids.p1}`,
      event: 'virtual_account.status_changed',
      created: clock.now().toISOString(),
      data: { ...(reply.body as Record<string, unknown>), payer: { name: PAYER_NAME, phone: PAYER_PHONE, email: E1 } },
    });
    const secret = sandboxCredentials(TEST_SECRET, 'sandbox_bank').webhookSecret;
    const posted = await t.app.inject({
      method: 'POST',
      url: '/provider/sandbox_bank/callback',
      payload: body,
      headers: {
        'content-type': 'application/json',
        'x-sandbox-signature': timestampedSignatureHeader(secret, body, clock.now()),
      },
    });
    assert.equal(posted.statusCode, 200, posted.body);
    await t.deliverNotifications();
    assert.equal((await t.payment(ids.p1))['status'], 'succeeded');
    const stored = await store().query<{ payment_id: string }>(
      'SELECT payment_id FROM provider_notifications WHERE raw_body LIKE $1',
      [`%${PAYER_PHONE}%`],
    );
    assert.deepEqual(
      stored.map((r) => r.payment_id),
      [ids.p1],
      'the notification with the payer fields is stored for the payment',
    );

    // 2. A checkout: a bank selection, then an e-wallet one (the first payment canceled), paid.
    const cs = await t.call('POST', '/checkout/create', {
      body: { amount: 75000.0, currency: 'IDR', reference_no: ref('pd-cs'), email: E2, description: `Basket of ${E2}` },
      headers: { 'idempotency-key': `pd-cs-${ref()}` },
    });
    assert.equal(cs.statusCode, 201, cs.body);
    ids.cs = String(json(cs)['id']);
    const secretOf = String(json(cs)['client_secret']);
    for (const channel of ['bank', 'ewallet']) {
      const selected = await t.call('POST', `/checkout/${ids.cs}/select`, {
        key: null,
        body: { client_secret: secretOf, channel },
      });
      assert.equal(selected.statusCode, 200, selected.body);
      ids.csPayments.push(String((json(selected)['payment'] as Record<string, unknown>)['id']));
    }
    await simulate(ids.csPayments[1] ?? '', 'succeeded');
    assert.equal(json(await t.call('GET', `/checkout/${ids.cs}`))['status'], 'completed');

    // 3. A pending payment, 4. an expired one, and merchant B's canceled one.
    ids.p3 = await createPayment({ channel: 'bank', email: E3 });
    ids.p4 = await createPayment({ channel: 'counter', email: E4 });
    await simulate(ids.p4, 'expired');
    assert.equal((await t.payment(ids.p4))['status'], 'expired');
    ids.pB = await createPayment({ channel: 'bank', email: 'erin.merchant-b@example.com' }, undefined, t.b.sandboxKey);

    const reports = await dispatcher.drain();
    assert.ok(reports.length >= 8, `webhooks delivered (${reports.length})`);
    const found = await scan(ERASED);
    for (const where of [
      `payments.email: ${E1}`,
      `payments.description: ${E1}`,
      `payments.metadata: ${E1}`,
      `events.payload: ${E1}`,
      `idempotency_keys.response_body: ${E1}`,
      `provider_notifications.raw_body: ${PAYER_PHONE}`,
      `webhook_attempts.response_body: ${E1}`,
      `checkouts.email: ${E2}`,
      `payments.email: ${E2}`,
      `events.payload: ${E2}`,
      `payments.email: ${E4}`,
    ]) {
      assert.ok(found.includes(where), `before erasure the scan finds ${where} (found: ${found.join('; ')})`);
    }
  });

  it('refuses bad input, a pending payment and other tenants, changing nothing', async () => {
    const snapshot = await digest();
    const cases: [string, Awaited<ReturnType<typeof erase>>, number, string][] = [
      ['pending', await erase(ids.p3), 409, 'payment_state_conflict'],
      ['unknown field', await erase(ids.p1, undefined, { everything: true }), 400, 'invalid_request'],
      ['malformed id', await erase('pay_nope'), 404, 'resource_not_found'],
      ['unknown id', await erase('pay_01KA2B3C4D5E6F7G8H9J0KMNPQ'), 404, 'resource_not_found'],
      ["merchant B's key", await erase(ids.p1, t.b.sandboxKey), 404, 'resource_not_found'],
      ["A's production key", await erase(ids.p1, t.a.productionKey), 404, 'resource_not_found'],
      ["merchant A on B's payment", await erase(ids.pB), 404, 'resource_not_found'],
      ['no key', await erase(ids.p1, null as unknown as string), 401, 'unauthorized'],
    ];
    for (const [what, res, status, code] of cases) {
      assert.equal(res.statusCode, status, `${what}: ${res.body}`);
      assert.equal(json(res)['code'], code, what);
    }
    assert.deepEqual(json(cases[0]![1])['details'], [{ status: 'pending' }]);
    assert.deepEqual(await digest(), snapshot, 'nothing changed');
  });

  it('the endpoint erases a payment everywhere, once; amounts, statuses and the ledger stay', async () => {
    const before = await digest([E1]);
    const balanceBefore = (await t.call('GET', '/balance')).body;
    const res = await erase(ids.p1);
    assert.equal(res.statusCode, 200, res.body);
    const p = json(res);
    assert.equal(p['email'], null);
    assert.equal(p['payer_data_erased_at'], clock.now().toISOString());
    assert.equal(p['description'], 'Order 1001 for [erased]');
    assert.deepEqual(p['metadata'], { order: '1001', contact: '[erased]' });
    assert.equal(p['status'], 'succeeded');
    assert.equal(p['amount'], 150000);

    const found = await scan([E1, PAYER_NAME, PAYER_PHONE]);
    assert.deepEqual(found, [], 'E1 and the payer fields are in no table');
    const [n] = await store().query<{ raw_body: string }>('SELECT raw_body FROM provider_notifications WHERE raw_body LIKE $1', [
      `%sbva_evt_payer_${ids.p1}%`,
    ]);
    assert.deepEqual((JSON.parse(n?.raw_body ?? '{}') as { data: Record<string, unknown> }).data['payer'], null);
    const after = await digest();
    // The erasure's own audit row (docs/audit-log.md) names the payment, nothing of the payer.
    const audited = (after['audit_log'] ?? []).filter((r) => !(before['audit_log'] ?? []).includes(r));
    assert.equal(audited.length, 1);
    assert.match(audited[0] ?? '', /"action":"payment\.payer_data_erased"/);
    after['audit_log'] = before['audit_log'] ?? [];
    assert.deepEqual(after, before, 'everything else is unchanged');
    assert.equal((await t.call('GET', '/balance')).body, balanceBefore);

    // Again: the same answer, and not one row changes.
    const snapshot = await digest();
    const again = await erase(ids.p1);
    assert.equal(again.statusCode, 200);
    assert.equal(json(again)['payer_data_erased_at'], p['payer_data_erased_at']);
    assert.equal(json(again)['version'], p['version']);
    assert.deepEqual(await digest(), snapshot);
  });

  it('the retention job erases final payments and closed checkouts past the retention, never a pending one', async () => {
    // Within the retention nothing is due.
    clock.advance((RETENTION_DAYS - 1) * DAY_MS);
    const snapshot = await digest();
    assert.equal(await runJob(), 0);
    assert.deepEqual(await digest(), snapshot);

    clock.advance(2 * DAY_MS);
    const before = await digest([E2, E4]);
    const balanceBefore = (await t.call('GET', '/balance')).body;
    // Due: the checkout's two payments (one canceled, one succeeded) and the expired payment; the
    // erased one is done and the pending ones (A's and B's) are never candidates.
    assert.equal(await runJob(), 3);
    assert.equal(await runJob(), 0, 'nothing left: the job is idempotent');

    assert.deepEqual(await scan(ERASED), [], 'no erased string is in any table');
    const pending = await t.payment(ids.p3);
    assert.equal(pending['email'], E3, 'the pending payment keeps its e-mail');
    assert.equal(pending['payer_data_erased_at'], null);
    assert.equal(pending['status'], 'pending');
    const other = json(await t.call('GET', `/payment/${ids.pB}`, { key: t.b.sandboxKey }));
    assert.equal(other['email'], 'erin.merchant-b@example.com', "merchant B's pending payment is untouched");
    assert.deepEqual(await digest(), before, 'everything else is unchanged');
    assert.equal((await t.call('GET', '/balance')).body, balanceBefore);
    assert.deepEqual(await verifyLedger(store()), []);

    for (const id of [...ids.csPayments, ids.p4]) {
      const p = await t.payment(id);
      assert.equal(p['email'], null, id);
      assert.equal(p['payer_data_erased_at'], clock.now().toISOString(), id);
    }
    const checkout = json(await t.call('GET', `/checkout/${ids.cs}`));
    assert.equal(checkout['email'], null);
    assert.equal(checkout['description'], 'Basket of [erased]');
    assert.equal(checkout['status'], 'completed');
    assert.equal(checkout['payer_data_erased_at'], clock.now().toISOString());
  });

  it('every later API answer lacks the erased data; events show the fields null; logs never had it', async () => {
    const text = await apiAnswers([ids.p1, ...ids.csPayments, ids.p4], ids.cs);
    for (const e of ERASED) assert.ok(!text.toLowerCase().includes(e.toLowerCase()), `${e} in an API answer`);
    assert.ok(text.includes('[erased]'), 'the answers were read');
    const events = json(await t.call('GET', `/event?object_id=${ids.p1}`))['data'] as {
      data: { object: Record<string, unknown> };
    }[];
    assert.ok(events.length >= 2);
    for (const e of events) assert.equal(e.data.object['email'], null);
    const completed = json(await t.call('GET', `/event?object_id=${ids.cs}&type=checkout.completed`))['data'] as {
      data: { object: { email: unknown; payment: { email: unknown } } };
    }[];
    assert.equal(completed.length, 1);
    assert.equal(completed[0]?.data.object.email, null);
    assert.equal(completed[0]?.data.object.payment.email, null);

    const logged = logs.text();
    assert.ok(logged.length > 0, 'the app logged');
    for (const e of [...ERASED, E3]) assert.ok(!logged.toLowerCase().includes(e.toLowerCase()), `${e} in the logs`);
  });
});

/** The logger's own redaction: an e-mail logged by mistake under `email` never reaches the line. */
describe('logger redaction of e-mails', () => {
  it('redacts email fields at any of the first three levels', () => {
    let line = '';
    const log = createLogger('info', {
      write: (s: string) => {
        line += s;
      },
    });
    log.info({ email: 'a@example.com', body: { email: 'b@example.com', payer: { email: 'c@example.com' } } }, 'x');
    for (const e of ['a@example.com', 'b@example.com', 'c@example.com']) assert.ok(!line.includes(e), line);
    assert.ok(line.includes('[redacted]'));
  });
});
