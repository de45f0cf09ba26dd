import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { createTestApp, json, quickStart, ref, type TestApp } from '../harness/test-app.ts';

const addFormats = addFormatsModule.default;

describe('POST /payment/create and GET /payment/{id}', () => {
  let t: TestApp;
  let validatePayment: (v: unknown) => boolean;
  before(async () => {
    t = await createTestApp();
    // Responses are checked against the published OpenAPI schema, not against our own view code.
    const doc = JSON.parse((await t.call('GET', '/openapi.json', { key: null })).body) as {
      components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema({ ...schema, $id: name });
    validatePayment = ajv.getSchema('Payment') as (v: unknown) => boolean;
  });
  after(() => t.close());

  it('accepts the quick-start shape (amount, currency, reference_no, email) with 201 and instructions', async () => {
    const body = quickStart();
    const res = await t.call('POST', '/payment/create', { body });
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    assert.ok(validatePayment(p), 'matches the Payment schema');
    assert.match(String(p['id']), /^pay_[0-9A-Z]{26}$/);
    assert.equal(p['status'], 'pending');
    assert.equal(p['amount'], 150000);
    assert.equal(p['currency'], 'IDR');
    assert.equal(p['reference_no'], body['reference_no']);
    assert.equal(p['email'], 'payer@example.com');
    assert.equal(p['channel_requested'], 'auto');
    assert.equal(p['channel'], 'bank');
    assert.equal(p['environment'], 'sandbox');
    assert.equal(p['version'], 2);
    const instructions = p['instructions'] as Record<string, unknown>;
    assert.equal(instructions['type'], 'virtual_account');
    assert.match(String(instructions['account_number']), /^\d{16}$/);
    assert.equal(instructions['amount'], 150000);
    assert.equal(p['expires_at'], instructions['expires_at']);
    assert.equal(res.headers['api-version'], '2026-11-01');
    assert.match(String(res.headers['request-id']), /^req_/);
  });

  it('stores and returns every field', async () => {
    const body = {
      amount: 25000.5,
      currency: 'IDR',
      reference_no: ref('full'),
      description: 'Two coffees',
      channel: 'ewallet',
      callback_url: 'https://shop.example.com/callback',
      metadata: { customer_id: 'cus_42', notes: 'no sugar' },
      email: 'payer@example.com',
    };
    const created = json(await t.call('POST', '/payment/create', { body }));
    const got = await t.call('GET', `/payment/${String(created['id'])}`);
    assert.equal(got.statusCode, 200);
    const p = json(got);
    assert.ok(validatePayment(p));
    assert.deepEqual(p, created);
    assert.equal(p['amount'], 25000.5);
    assert.equal(p['description'], 'Two coffees');
    assert.equal(p['callback_url'], 'https://shop.example.com/callback');
    assert.deepEqual(p['metadata'], { customer_id: 'cus_42', notes: 'no sugar' });
    assert.deepEqual(p['payment_method'], {
      channel: 'ewallet',
      connector: 'sandbox_ewallet',
      instrument: 'SANDBOXPAY',
      instrument_name: 'SandboxPay',
    });
    const rows = await t.testStore.store.query<{ amount_minor: bigint }>('SELECT amount_minor FROM payments WHERE id = $1', [
      p['id'],
    ]);
    assert.equal(rows[0]?.amount_minor, 2_500_050n, 'stored as exact minor units');
  });

  it('issues channel-specific instructions for each channel', async () => {
    const expectations: [string, Record<string, unknown>, string[]][] = [
      ['bank', { amount: 150000 }, ['bank_code', 'bank_name', 'account_number', 'account_holder_name']],
      ['ewallet', { amount: 150000 }, ['provider', 'checkout_url', 'deep_link', 'qr_string']],
      ['counter', { amount: 150000 }, ['payment_code', 'barcode_value', 'outlets', 'partner']],
    ];
    for (const [channel, extra, fields] of expectations) {
      const res = await t.call('POST', '/payment/create', { body: quickStart({ channel, ...extra }) });
      assert.equal(res.statusCode, 201, res.body);
      const p = json(res);
      assert.equal(p['channel'], channel);
      const instructions = p['instructions'] as Record<string, unknown>;
      for (const f of fields) assert.ok(instructions[f] !== undefined && instructions[f] !== '', `${channel}.${f}`);
    }
  });

  it('handles zero-decimal currencies exactly', async () => {
    const res = await t.call('POST', '/payment/create', {
      body: quickStart({ amount: 50000, currency: 'VND', channel: 'ewallet' }),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(res)['amount'], 50000);
  });

  it("answers 404, identical to an unknown id, for another merchant's or environment's payment", async () => {
    const created = json(await t.call('POST', '/payment/create', { body: quickStart() }));
    const id = String(created['id']);
    const unknown = await t.call('GET', '/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY');
    const otherMerchant = await t.call('GET', `/payment/${id}`, { key: t.b.sandboxKey });
    const otherEnvironment = await t.call('GET', `/payment/${id}`, { key: t.a.productionKey });
    const malformed = await t.call('GET', '/payment/not-an-id');
    for (const res of [unknown, otherMerchant, otherEnvironment, malformed]) {
      assert.equal(res.statusCode, 404);
      const body = json(res);
      assert.equal(body['code'], 'resource_not_found');
      assert.equal(body['message'], 'No such payment.');
      assert.deepEqual(body['details'], []);
    }
  });

  it('keeps environments apart: a production key creates production payments', async () => {
    const res = await t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body: quickStart({ callback_url: 'https://shop.example.com/cb' }),
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(res)['environment'], 'production');
    const http = await t.call('POST', '/payment/create', {
      key: t.a.productionKey,
      body: quickStart({ callback_url: 'http://shop.example.com/cb' }),
    });
    assert.equal(http.statusCode, 400);
    assert.equal((json(http)['details'] as { issue: string }[])[0]?.issue, 'https_required');
  });

  it('writes a payment.pending event in the same transaction, carrying the version', async () => {
    const p = json(await t.call('POST', '/payment/create', { body: quickStart() }));
    const events = await t.testStore.store.query<{
      type: string;
      object_version: number;
      payload: { data: { object: { id: string; version: number } } };
    }>('SELECT type, object_version, payload FROM events WHERE object_id = $1', [p['id']]);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.type, 'payment.pending');
    assert.equal(events[0]?.object_version, 2);
    assert.equal(events[0]?.payload.data.object.version, 2);
  });
});
