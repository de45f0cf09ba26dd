import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ConnectorCapabilities } from '../../src/connectors/core/connector.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { formatMajorAmount } from '../../src/lib/money.ts';
import { BUILT_IN_CAPABILITIES } from '../../src/runtime.ts';
import { openApiValidators } from '../harness/openapi.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

interface MethodBody {
  object: string;
  channel: string;
  connector: string;
  connector_name: string;
  instruments: { code: string; name: string }[];
  currencies: { currency: string; min_amount: number; max_amount: number }[];
  instruction_expiry: { default_seconds: number; min_seconds: number; max_seconds: number };
  supports: { cancel: boolean; refund: boolean; partial_refund: boolean };
}

const capabilities: ConnectorCapabilities[] = [...BUILT_IN_CAPABILITIES];
const byName = (name: string) => {
  const c = capabilities.find((x) => x.connector === name);
  assert.ok(c !== undefined, name);
  return c;
};

/** A create body whose amount is written as this exact JSON number text. */
const withAmount = (body: Record<string, unknown>, amountText: string) =>
  JSON.stringify({ ...body, amount: 0 }).replace('"amount":0', `"amount":${amountText}`);

describe('GET /payment_method', () => {
  let t: TestApp;
  let validateList: (v: unknown) => boolean;
  before(async () => {
    // Production keys reach no connector here (the default deployment ships only simulators).
    t = await createTestApp({ productionConnectors: [] });
    validateList = (await openApiValidators(t))('PaymentMethodList');
  });
  after(() => t.close());

  async function methods(query = '', key = t.a.sandboxKey): Promise<MethodBody[]> {
    const res = await t.call('GET', `/payment_method${query}`, { key });
    assert.equal(res.statusCode, 200, res.body);
    const body = json(res);
    assert.ok(validateList(body), `matches the PaymentMethodList schema: ${res.body.slice(0, 300)}`);
    assert.equal(body['object'], 'list');
    return body['data'] as MethodBody[];
  }

  async function refused(query: string): Promise<[string, string][]> {
    const res = await t.call('GET', `/payment_method${query}`);
    assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
    const body = json(res);
    assert.equal(body['code'], 'invalid_request');
    return (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]);
  }

  it('lists every enabled connector with its instruments, exact currency bounds and instruction expiry', async () => {
    const data = await methods();
    assert.deepEqual(
      data.map((m) => m.connector),
      capabilities.map((c) => c.connector),
    );
    for (const m of data) {
      const c = byName(m.connector);
      assert.equal(m.object, 'payment_method');
      assert.equal(m.channel, c.channel);
      assert.equal(m.connector_name, c.displayName);
      assert.deepEqual(
        m.instruments,
        c.instruments.map((i) => ({ code: i.code, name: i.name })),
      );
      assert.deepEqual(
        m.currencies.map((x) => x.currency),
        Object.keys(c.currencies),
      );
      for (const x of m.currencies) {
        const bounds = c.currencies[x.currency];
        assert.ok(bounds !== undefined);
        // The JSON number's text is exactly the decimal of the minor-unit bound.
        assert.equal(String(x.min_amount), formatMajorAmount(bounds.minMinor, x.currency as CurrencyCode));
        assert.equal(String(x.max_amount), formatMajorAmount(bounds.maxMinor, x.currency as CurrencyCode));
      }
      assert.equal(m.instruction_expiry.default_seconds * 1000, c.instructionTtl.defaultMs);
      assert.equal(m.instruction_expiry.min_seconds * 1000, c.instructionTtl.minMs);
      assert.equal(m.instruction_expiry.max_seconds * 1000, c.instructionTtl.maxMs);
      assert.deepEqual(m.supports, {
        cancel: c.supports.cancel,
        refund: c.supports.refund,
        partial_refund: c.supports.partialRefund,
      });
    }
    // Spot checks of the wire text: exact numbers in major units, not minor units or strings.
    const raw = (await t.call('GET', '/payment_method?currency=IDR')).body;
    assert.ok(raw.includes('"currency":"IDR","min_amount":10000,"max_amount":50000000000}'), raw);
    const php = (await t.call('GET', '/payment_method?currency=PHP')).body;
    assert.ok(php.includes('"currency":"PHP","min_amount":1,"max_amount":100000}'), php);
    assert.deepEqual(
      data.find((m) => m.channel === 'counter')?.instruments.map((i) => i.code),
      ['ALFAMART', 'INDOMARET'],
    );
  });

  it('narrows to one currency and shows only its bounds', async () => {
    const vnd = await methods('?currency=VND');
    assert.deepEqual(
      vnd.map((m) => [m.connector, m.currencies]),
      [['sandbox_ewallet', [{ currency: 'VND', min_amount: 1000, max_amount: 50000000 }]]],
    );
    const php = await methods('?currency=PHP');
    assert.deepEqual(
      php.map((m) => m.connector),
      capabilities.filter((c) => c.currencies['PHP'] !== undefined).map((c) => c.connector),
    );
    for (const m of php)
      assert.deepEqual(
        m.currencies.map((x) => x.currency),
        ['PHP'],
      );
    assert.deepEqual(await methods('?currency=JPY'), [], 'a valid currency nobody accepts: nothing to offer');
  });

  it('with amount and currency, lists what routing would try for that payment, in routing order', async () => {
    const channelsFor = async (query: string) => (await methods(query)).map((m) => m.channel);
    assert.deepEqual(await channelsFor('?amount=150000.00&currency=IDR'), ['bank', 'ewallet', 'counter']);
    // Above the counter partner's 5,000,000.00 maximum; exactly at it is still in.
    assert.deepEqual(await channelsFor('?amount=5000000.01&currency=IDR'), ['bank', 'ewallet']);
    assert.deepEqual(await channelsFor('?amount=5000000&currency=IDR'), ['bank', 'ewallet', 'counter']);
    // Below the bank's 10,000.00 minimum but within the e-wallet's.
    assert.deepEqual(await channelsFor('?amount=9999.99&currency=IDR'), ['ewallet']);
    assert.deepEqual(await channelsFor('?amount=99.99&currency=IDR'), [], 'below every minimum: empty, not an error');
    assert.deepEqual(await channelsFor('?amount=1000&currency=VND'), ['ewallet']);
    // 10.1 and 10.10 are the same amount; an exponent is read exactly as well.
    assert.deepEqual(await methods('?amount=150.1&currency=PHP'), await methods('?amount=150.10&currency=PHP'));
    assert.deepEqual(await channelsFor('?amount=1.5e2&currency=PHP'), ['bank', 'ewallet', 'counter']);
  });

  it('agrees with the create call: the first method listed is the channel an auto payment gets', async () => {
    await fc.assert(
      // Small amounts around the minimums and large ones around the maximums.
      fc.asyncProperty(
        fc.oneof(fc.bigInt({ min: 1n, max: 2_000_000n }), fc.bigInt({ min: 1n, max: 6_000_000_000_000n })),
        async (minor) => {
          const amount = formatMajorAmount(minor, 'IDR' as CurrencyCode);
          const listed = await methods(`?amount=${amount}&currency=IDR`);
          const created = await t.call('POST', '/payment/create', { rawBody: withAmount(quickStart(), amount) });
          if (listed.length === 0) {
            assert.equal(created.statusCode, 422, created.body);
          } else {
            assert.equal(created.statusCode, 201, created.body);
            const p = json(created);
            assert.equal(p['channel'], listed[0]?.channel);
            assert.equal((p['payment_method'] as { connector: string }).connector, listed[0]?.connector);
          }
        },
      ),
      { numRuns: 25, seed: 20261121 },
    );
  });

  it('parses the amount exactly, with the same issue codes as create', async () => {
    assert.deepEqual(await refused('?amount=10.005&currency=PHP'), [['query.amount', 'amount_too_precise']]);
    assert.deepEqual(await refused('?amount=1e-7&currency=PHP'), [['query.amount', 'amount_too_precise']]);
    assert.deepEqual(await refused('?amount=1000.5&currency=VND'), [['query.amount', 'amount_too_precise']]);
    assert.deepEqual(await refused('?amount=0&currency=IDR'), [['query.amount', 'amount_not_positive']]);
    assert.deepEqual(await refused('?amount=-5&currency=IDR'), [['query.amount', 'amount_not_positive']]);
    assert.deepEqual(await refused('?amount=1e400&currency=IDR'), [['query.amount', 'amount_too_large']]);
    assert.deepEqual(await refused('?amount=abc&currency=IDR'), [['query.amount', 'amount_not_a_number']]);
    assert.deepEqual(await refused('?amount=%2B5&currency=IDR'), [['query.amount', 'amount_not_a_number']]);
    assert.deepEqual(await refused('?amount=&currency=IDR'), [['query.amount', 'amount_not_a_number']]);
    assert.deepEqual(await refused('?amount=100'), [['query.currency', 'required']]);
    assert.deepEqual(await refused('?currency=idr'), [['query.currency', 'invalid_format']]);
    assert.deepEqual(await refused('?currency=XYZ'), [['query.currency', 'unknown_currency']]);
    assert.deepEqual(await refused('?amount=10.005&currency=XYZ'), [['query.currency', 'unknown_currency']]);
    assert.deepEqual(await refused('?channel=bank'), [['query.channel', 'unknown_field']]);
    // The create body says the same about the same amount.
    const create = await t.call('POST', '/payment/create', { rawBody: withAmount(quickStart({ currency: 'PHP' }), '10.005') });
    assert.equal(create.statusCode, 400);
    assert.equal((json(create)['details'] as { issue: string }[])[0]?.issue, 'amount_too_precise');
  });

  it('answers for the key’s environment only and requires a key', async () => {
    assert.deepEqual(await methods('', t.a.productionKey), [], 'no connector is enabled for production here');
    assert.equal((await methods('', t.b.sandboxKey)).length, capabilities.length);
    const anonymous = await t.call('GET', '/payment_method', { key: null });
    assert.equal(anonymous.statusCode, 401);
  });
});
