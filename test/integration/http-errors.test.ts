import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import { openPostgresStore } from '../../src/db/postgres-store.ts';
import { ManualClock, systemClock } from '../../src/lib/clock.ts';
import { ERROR_CATALOGUE } from '../../src/lib/error-catalogue.ts';
import { noFailpoints, parseFailpoints } from '../../src/lib/failpoints.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createAuthenticator } from '../../src/modules/merchants/authenticator.ts';
import { TEST_OPERATOR, createTestApp, json, quickStart, type TestApp, TEST_SECRET } from '../harness/test-app.ts';
import { openTestStore } from '../harness/test-store.ts';

function assertErrorShape(body: string, code: string) {
  const error = JSON.parse(body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(error).sort(), ['code', 'details', 'message', 'request_id']);
  assert.equal(error['code'], code);
  assert.ok(Array.isArray(error['details']));
  assert.match(String(error['request_id']), /^req_/);
  assert.doesNotMatch(body, /at .*\.ts:\d+|stack|SELECT|INSERT|pglite|node_modules/i, 'no internals in the body');
  assert.ok(code in ERROR_CATALOGUE);
}

describe('error responses', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date());
  before(async () => {
    t = await createTestApp({ clock });
  });
  after(() => t.close());

  const cases: [string, () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, number, string][] =
    [
      ['malformed JSON', () => t.call('POST', '/payment/create', { rawBody: '{"amount": 1,' }), 400, 'invalid_json'],
      ['empty body', () => t.call('POST', '/payment/create', { rawBody: '' }), 400, 'invalid_json'],
      ['JSON array body', () => t.call('POST', '/payment/create', { body: [1, 2] }), 400, 'invalid_request'],
      ['JSON string body', () => t.call('POST', '/payment/create', { rawBody: '"hello"' }), 400, 'invalid_request'],
      ['JSON null body', () => t.call('POST', '/payment/create', { rawBody: 'null' }), 400, 'invalid_request'],
      [
        'prototype poisoning',
        () => t.call('POST', '/payment/create', { rawBody: '{"__proto__": {"admin": true}, "amount": 1}' }),
        400,
        'invalid_request',
      ],
      [
        'text/plain body',
        () => t.call('POST', '/payment/create', { rawBody: 'amount=1', headers: { 'content-type': 'text/plain' } }),
        415,
        'unsupported_media_type',
      ],
      [
        'form body',
        () =>
          t.call('POST', '/payment/create', {
            rawBody: 'amount=1',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        415,
        'unsupported_media_type',
      ],
      [
        'oversized body',
        () => t.call('POST', '/payment/create', { body: quickStart({ description: 'x'.repeat(70 * 1024) }) }),
        413,
        'payload_too_large',
      ],
      ['unknown route', () => t.call('GET', '/payments/unknown'), 404, 'route_not_found'],
      ['unknown method on a known path', () => t.call('DELETE', '/payment/create'), 405, 'method_not_allowed'],
      ['no Authorization', () => t.call('GET', '/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY', { key: null }), 401, 'unauthorized'],
      [
        'Basic instead of Bearer',
        () => t.call('GET', '/payment/x', { key: null, headers: { authorization: 'Basic dXNlcjpwdw==' } }),
        401,
        'unauthorized',
      ],
      ['malformed key', () => t.call('GET', '/payment/x', { key: 'sk_test_short' }), 401, 'unauthorized'],
      ['unknown well-formed key', () => t.call('GET', '/payment/x', { key: `sk_test_${'A'.repeat(32)}` }), 401, 'unauthorized'],
      [
        'unknown Api-Version',
        () => t.call('GET', '/payment/x', { headers: { 'api-version': '1999-01-01' } }),
        400,
        'invalid_api_version',
      ],
    ];
  for (const [name, run, status, code] of cases) {
    it(`${name} → ${status} ${code}`, async () => {
      const res = await run();
      assert.equal(res.statusCode, status, res.body);
      assertErrorShape(res.body, code);
    });
  }

  it('says why a valid JSON body with a forbidden key is refused, naming the key and where it is', async () => {
    const before = await t.testStore.store.query<{ n: string }>('SELECT count(*) AS n FROM payments', []);
    const top = await t.call('POST', '/payment/create', { rawBody: '{"__proto__": {"admin": true}, "amount": 1}' });
    assert.equal(top.statusCode, 400);
    const body = json(top);
    assert.doesNotMatch(String(body['message']), /not valid JSON/);
    assert.match(String(body['message']), /"__proto__" key/);
    assert.deepEqual(body['details'], [
      { field: '__proto__', issue: 'forbidden_key', message: '"__proto__" keys are refused wherever they are' },
    ]);
    const nested = json(
      await t.call('POST', '/payment/create', {
        rawBody: '{"amount": 1, "metadata": {"a": "b", "constructor": {"prototype": {"x": 1}}}}',
      }),
    );
    assert.match(String(nested['message']), /"constructor\.prototype" key/);
    assert.deepEqual(
      (nested['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
      [['metadata.constructor.prototype', 'forbidden_key']],
    );
    // Malformed JSON keeps its own answer.
    assert.equal(
      json(await t.call('POST', '/payment/create', { rawBody: '{"amount": 1,' }))['message'],
      'The body is not valid JSON.',
    );
    const afterwards = await t.testStore.store.query<{ n: string }>('SELECT count(*) AS n FROM payments', []);
    assert.equal(String(afterwards[0]?.n), String(before[0]?.n));
  });

  it('says the body limit in the 413 message and details', async () => {
    const res = await t.call('POST', '/payment/create', { body: quickStart({ description: 'x'.repeat(70 * 1024) }) });
    assert.equal(res.statusCode, 413);
    const body = json(res);
    assert.equal(body['message'], 'The body is larger than the limit of 65536 bytes.');
    assert.deepEqual(body['details'], [{ limit_bytes: 65536 }]);
  });

  it('authenticates before reading the body: an unauthenticated malformed body is a 401', async () => {
    const res = await t.call('POST', '/payment/create', { key: null, rawBody: '{bad' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
  });

  it('refuses revoked keys and rolled keys after their overlap', async () => {
    const issued = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    assert.ok(issued);
    assert.equal((await t.call('GET', '/payment/x', { key: issued.secret })).statusCode, 404);
    await t.merchants.revokeKey(issued.key.id, TEST_OPERATOR);
    assertErrorShape((await t.call('GET', '/payment/x', { key: issued.secret })).body, 'unauthorized');

    const old = await t.merchants.createKey(t.a.id, 'sandbox', TEST_OPERATOR);
    assert.ok(old);
    const rolled = await t.merchants.rollKey(old.key.id, 60_000, TEST_OPERATOR);
    assert.ok(rolled);
    assert.equal((await t.call('GET', '/payment/x', { key: old.secret })).statusCode, 404, 'old key works during the overlap');
    assert.equal((await t.call('GET', '/payment/x', { key: rolled.issued.secret })).statusCode, 404, 'new key works');
    clock.advance(60_001);
    assertErrorShape((await t.call('GET', '/payment/x', { key: old.secret })).body, 'unauthorized');
    assert.equal((await t.call('GET', '/payment/x', { key: rolled.issued.secret })).statusCode, 404);
  });

  it('a key of one environment never reads the other (the key decides the environment)', async () => {
    const created = json(await t.call('POST', '/payment/create', { body: quickStart() }));
    assert.equal((await t.call('GET', `/payment/${String(created['id'])}`, { key: t.a.productionKey })).statusCode, 404);
  });

  it('an unexpected failure is a 500 that leaks nothing', async () => {
    const crashing = await createTestApp({ testStore: t.testStore, failpoints: parseFailpoints('create.after_connector=throw') });
    try {
      const body = quickStart();
      const headers = { 'idempotency-key': `crash-${String(body['reference_no'])}` };
      const res = await crashing.call('POST', '/payment/create', { key: t.a.sandboxKey, body, headers });
      assert.equal(res.statusCode, 500);
      assertErrorShape(res.body, 'internal_error');
      assert.doesNotMatch(res.body, /failpoint/);
      // The failed request gave its lease back: the retry (on a healthy process) resumes at once.
      const retry = await t.call('POST', '/payment/create', { body, headers });
      assert.equal(retry.statusCode, 201, retry.body);
    } finally {
      await crashing.close();
    }
  });
});

describe('database outage', () => {
  it('PostgreSQL unreachable → 503 service_unavailable with Retry-After, quickly', async () => {
    // A port with nothing listening on loopback: reserve one, then free it.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const store = await openPostgresStore({
      connectionString: `postgres://postgres@127.0.0.1:${port}/test`,
      poolSize: 2,
      connectTimeoutMs: 500,
      statementTimeoutMs: 1_000,
    });
    const app = await buildApp({
      store,
      clock: systemClock,
      connectors: new ConnectorRegistry([], []),
      authenticator: createAuthenticator({ store, clock: systemClock, secret: TEST_SECRET, cacheTtlMs: 0 }),
      failpoints: noFailpoints,
      log: createLogger('silent'),
      readiness: { shuttingDown: false },
      publicBaseUrl: 'http://127.0.0.1:8080',
      webhookAllowlist: [],
      secret: TEST_SECRET,
      bodyLimitBytes: 65536,
      idempotencyLeaseMs: 60_000,
      idempotencyTtlHours: 24,
      connectorTimeoutMs: 1_000,
    });
    try {
      const started = Date.now();
      const res = await app.inject({
        method: 'GET',
        url: '/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY',
        headers: { authorization: `Bearer sk_test_${'B'.repeat(32)}` },
      });
      assert.equal(res.statusCode, 503, res.body);
      assertErrorShape(res.body, 'service_unavailable');
      assert.equal(res.headers['retry-after'], '2');
      assert.ok(Date.now() - started < 3_000, 'fails fast, no hang');
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
    } finally {
      await app.close();
      await store.close();
    }
  });

  it('embedded store closed under the app → 503, not 500', async () => {
    const ts = await openTestStore({ kind: 'embedded' });
    const t = await createTestApp({ testStore: ts, authCacheTtlMs: 60_000 });
    const created = json(await t.call('POST', '/payment/create', { body: quickStart() }));
    await ts.store.close();
    const res = await t.call('GET', `/payment/${String(created['id'])}`);
    assert.equal(res.statusCode, 503, res.body);
    assertErrorShape(res.body, 'service_unavailable');
    await t.app.close();
  });
});
