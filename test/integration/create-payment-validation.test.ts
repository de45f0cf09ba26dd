import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/** Every validation rule of POST /payment/create, with its error code; none of them stores anything. */
describe('POST /payment/create validation', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  async function paymentCount(): Promise<bigint> {
    const rows = await t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM payments');
    return rows[0]?.n ?? -1n;
  }

  async function expectIssue(body: unknown, field: string, issue: string, rawBody?: string) {
    const before = await paymentCount();
    const res = await t.call('POST', '/payment/create', rawBody === undefined ? { body } : { rawBody });
    assert.equal(res.statusCode, 400, res.body);
    const error = json(res);
    assert.equal(error['code'], 'invalid_request');
    assert.ok(String(error['request_id']).startsWith('req_'));
    const details = error['details'] as { field: string; issue: string; message: string }[];
    assert.ok(
      details.some((d) => d.field === field && d.issue === issue && typeof d.message === 'string'),
      `expected ${field}/${issue} in ${res.body}`,
    );
    assert.equal(await paymentCount(), before, 'a refused request changes nothing');
  }

  const rules: [string, Record<string, unknown>, string, string][] = [
    ['amount missing', { amount: undefined }, 'amount', 'required'],
    ['currency missing', { currency: undefined }, 'currency', 'required'],
    ['reference_no missing', { reference_no: undefined }, 'reference_no', 'required'],
    ['amount as a string', { amount: '150000.00' }, 'amount', 'invalid_type'],
    ['amount as a boolean', { amount: true }, 'amount', 'invalid_type'],
    ['amount zero', { amount: 0 }, 'amount', 'too_small'],
    ['amount negative', { amount: -5 }, 'amount', 'too_small'],
    ['too many decimals for IDR', { amount: 10000.005 }, 'amount', 'amount_too_precise'],
    ['decimals for a zero-decimal currency', { amount: 5000.5, currency: 'VND' }, 'amount', 'amount_too_precise'],
    ['amount above the ceiling', { amount: 1e16 }, 'amount', 'amount_too_large'],
    ['lower-case currency', { currency: 'idr' }, 'currency', 'invalid_format'],
    ['unknown currency', { currency: 'ABC' }, 'currency', 'unknown_currency'],
    ['currency too long', { currency: 'IDRX' }, 'currency', 'too_long'],
    ['currency as a number', { currency: 360 }, 'currency', 'invalid_type'],
    ['empty reference_no', { reference_no: '' }, 'reference_no', 'too_short'],
    ['reference_no too long', { reference_no: 'x'.repeat(129) }, 'reference_no', 'too_long'],
    ['reference_no with a control character', { reference_no: 'a\nb' }, 'reference_no', 'invalid_format'],
    ['reference_no with a leading space', { reference_no: ' a' }, 'reference_no', 'invalid_format'],
    ['reference_no not a string', { reference_no: 12 }, 'reference_no', 'invalid_type'],
    ['unknown channel', { channel: 'card' }, 'channel', 'invalid_value'],
    ['description too long', { description: 'd'.repeat(1001) }, 'description', 'too_long'],
    ['description not a string', { description: 5 }, 'description', 'invalid_type'],
    ['email malformed', { email: 'not-an-email' }, 'email', 'invalid_format'],
    ['email too long', { email: `${'a'.repeat(250)}@x.co` }, 'email', 'too_long'],
    ['callback_url not a URL', { callback_url: 'hello' }, 'callback_url', 'invalid_url'],
    ['callback_url to a private address', { callback_url: 'http://10.0.0.5/cb' }, 'callback_url', 'private_address'],
    ['callback_url to loopback', { callback_url: 'http://127.0.0.1:9000/cb' }, 'callback_url', 'private_address'],
    ['callback_url with another scheme', { callback_url: 'ftp://example.com/cb' }, 'callback_url', 'unsupported_scheme'],
    ['callback_url too long', { callback_url: `https://example.com/${'a'.repeat(2100)}` }, 'callback_url', 'too_long'],
    ['metadata not an object', { metadata: 'x' }, 'metadata', 'invalid_type'],
    ['metadata value not a string', { metadata: { customer_id: 7 } }, 'metadata.customer_id', 'invalid_type'],
    ['metadata value too long', { metadata: { notes: 'n'.repeat(501) } }, 'metadata.notes', 'too_long'],
    ['metadata key invalid', { metadata: { 'bad key!': 'x' } }, 'metadata.bad key!', 'invalid_metadata_key'],
    [
      'metadata with too many keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
      'too_many_entries',
    ],
    ['an unknown field', { amout: 1 }, 'amout', 'unknown_field'],
  ];
  for (const [name, change, field, issue] of rules) {
    it(`${name} → ${field}/${issue}`, async () => {
      const body = { ...quickStart(), ...change };
      for (const [k, v] of Object.entries(change)) if (v === undefined) delete body[k];
      await expectIssue(body, field, issue);
    });
  }

  it('a 16-digit amount written with extra digits is refused as too precise, not rounded', async () => {
    await expectIssue(
      undefined,
      'amount',
      'amount_too_precise',
      `{"amount": 10.0000000000000001, "currency": "IDR", "reference_no": "r-precise"}`,
    );
  });

  it('1e-7 is refused and 1e5 is accepted, as exact values', async () => {
    await expectIssue(undefined, 'amount', 'amount_too_precise', '{"amount": 1e-7, "currency": "IDR", "reference_no": "r-exp"}');
    const res = await t.call('POST', '/payment/create', {
      rawBody: '{"amount": 1.5e5, "currency": "IDR", "reference_no": "r-exp-ok"}',
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(json(res)['amount'], 150000);
  });

  it('reports every problem at once', async () => {
    const res = await t.call('POST', '/payment/create', { body: { amount: '1', currency: 1, extra: true } });
    assert.equal(res.statusCode, 400);
    const fields = (json(res)['details'] as { field: string }[]).map((d) => d.field).sort();
    assert.deepEqual(fields, ['amount', 'currency', 'extra', 'reference_no']);
  });

  it('422 for a currency no connector takes, naming it; nothing stored', async () => {
    const before = await paymentCount();
    const res = await t.call('POST', '/payment/create', { body: quickStart({ currency: 'USD', amount: 10 }) });
    assert.equal(res.statusCode, 422);
    assert.equal(json(res)['code'], 'currency_not_supported');
    assert.equal(await paymentCount(), before);
  });

  it('422 for an amount outside every connector bound, naming the bounds', async () => {
    const res = await t.call('POST', '/payment/create', { body: quickStart({ amount: 50, channel: 'counter' }) });
    assert.equal(res.statusCode, 422);
    const error = json(res);
    assert.equal(error['code'], 'amount_out_of_range');
    assert.deepEqual((error['details'] as Record<string, unknown>[])[0], {
      field: 'amount',
      issue: 'amount_out_of_range',
      connector: 'sandbox_counter',
      min: 10000,
      max: 5000000,
      message: 'between 10000 and 5000000 IDR',
    });
  });

  it('null optional fields mean "not given"', async () => {
    const res = await t.call('POST', '/payment/create', {
      body: quickStart({ description: null, channel: null, callback_url: null, metadata: null, email: null }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    assert.equal(p['channel_requested'], 'auto');
    assert.deepEqual(p['metadata'], {});
  });

  it('rejects a malformed Idempotency-Key and stores nothing', async () => {
    const before = await paymentCount();
    for (const key of ['', 'x'.repeat(256), 'bad\u00e9key', ' padded']) {
      const res = await t.call('POST', '/payment/create', { body: quickStart(), headers: { 'idempotency-key': key } });
      assert.equal(res.statusCode, 400, `key ${JSON.stringify(key)}: ${res.body}`);
      assert.equal(json(res)['code'], 'invalid_idempotency_key');
    }
    assert.equal(await paymentCount(), before);
  });
});
