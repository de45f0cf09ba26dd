import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { call, quickStartBody } from './harness/api-client.ts';
import { freshDatabase } from './harness/databases.ts';
import { knobs } from './harness/knobs.ts';
import { loadOpenApi, type OpenApi, type Operation, OPS_PATHS, validBody } from './harness/openapi.ts';
import { createMerchant, type Merchant, newSecret, type ServerProcess, startServer } from './harness/processes.ts';

/**
 * Scenario 4: at least 10,000 generated malformed and mutated requests (fast-check; the seed is
 * printed and FUZZ_SEED replays it) against every write route that `/openapi.json` lists, sent to
 * a real server on PostgreSQL. No answer may be a 5xx or a hang; every 4xx matches the Error
 * schema of the document; every 2xx matches the documented response schema of its status; no
 * request without a valid key ever gets a 2xx. New write routes are covered when they land.
 */
interface FuzzRequest {
  op: number;
  pathId: string;
  auth: 'sandbox' | 'production' | 'none' | 'garbage' | 'malformed';
  garbage: string;
  contentType: string;
  idempotencyKey: string | null;
  apiVersion: string | null;
  body:
    | { kind: 'valid' }
    | { kind: 'mutated'; field: string; action: 'drop' | 'set'; value: unknown }
    | { kind: 'json'; value: unknown }
    | { kind: 'raw'; text: string };
}

/** Header-safe text: printable ASCII and Latin-1, as an HTTP client can send it. */
const headerText = (maxLength: number) =>
  fc
    .string({
      unit: fc
        .integer({ min: 0x20, max: 0xff })
        .filter((c) => c !== 0x7f)
        .map((c) => String.fromCharCode(c)),
      maxLength,
    })
    .map((s) => s.trim());

const special = fc.constantFrom<unknown>(
  null,
  '',
  0,
  -0,
  -1,
  1e308,
  1e-7,
  10.005,
  0.1,
  150000.001,
  2 ** 53 + 1,
  '150000',
  true,
  false,
  [],
  {},
  [1, 2],
  { a: { b: {} } },
  'IDR',
  'idr',
  'XXX',
  'JPY',
  'USD',
  'auto',
  'bank',
  'ewallet',
  'counter',
  'crypto',
  'a'.repeat(300),
  '\u0000',
  '🙂'.repeat(20),
  'http://127.0.0.1/cb',
  'https://example.com/cb',
  'http://169.254.169.254/latest',
  'javascript:alert(1)',
  'not-an-email',
  'a@b',
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  'x'.repeat(70_000),
);

const rawText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '',
    ' ',
    '{',
    '}',
    '[]',
    'null',
    '0',
    '"x"',
    '{"amount": }',
    '{"amount": 1e400, "currency": "IDR", "reference_no": "r"}',
    '{"amount": -1e400, "currency": "IDR", "reference_no": "r"}',
    '{"amount": 150000.00000000000000000001, "currency": "IDR", "reference_no": "r"}',
    '{"amount": 0x10, "currency": "IDR", "reference_no": "r"}',
    '{"amount": NaN, "currency": "IDR", "reference_no": "r"}',
    '{"amount": 1, "amount": 2, "currency": "IDR", "reference_no": "r"}',
    '{"\\u0061mount": 150000, "currency": "IDR", "reference_no": "r"}',
    '{"__proto__": {"x": 1}, "amount": 150000, "currency": "IDR", "reference_no": "r"}',
    '\ufeff{"amount": 150000}',
    `{"amount": 150000, "currency": "IDR", "reference_no": "r", "metadata": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `{"a":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`,
  ),
  fc.jsonValue().map((v) => JSON.stringify(v).slice(0, -1)), // truncated JSON
);

function requestArb(ops: readonly Operation[], fields: readonly string[], ids: readonly string[]): fc.Arbitrary<FuzzRequest> {
  return fc.record<FuzzRequest>({
    op: fc.integer({ min: 0, max: ops.length - 1 }),
    pathId: fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 80 }), fc.constant('pay_00000000000000000000000000')),
    auth: fc.constantFrom(
      'sandbox',
      'sandbox',
      'sandbox',
      'sandbox',
      'sandbox',
      'sandbox',
      'production',
      'none',
      'garbage',
      'malformed',
    ),
    garbage: headerText(120),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'text/plain',
          'application/problem+json',
          'application/json; charset=latin1',
          'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded',
          'APPLICATION/JSON',
        ),
      },
    ),
    idempotencyKey: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: headerText(300) }),
    apiVersion: fc.oneof(
      { weight: 8, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.oneof(headerText(30), fc.constant('2026-11-01')) },
    ),
    body: fc.oneof(
      { weight: 2, arbitrary: fc.constant({ kind: 'valid' as const }) },
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('mutated' as const),
          field: fc.constantFrom(...fields, 'extra_field', '__proto__'),
          action: fc.constantFrom('drop' as const, 'set' as const, 'set' as const),
          value: fc.oneof(special, fc.jsonValue({ maxDepth: 3 }), fc.double(), fc.string({ maxLength: 50 })),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: rawText }) },
    ),
  });
}

describe('fuzz: malformed and mutated requests on every write route (PostgreSQL)', () => {
  let server: ServerProcess;
  let merchant: Merchant;
  let api: OpenApi;
  let dropDb: () => Promise<void> = async () => undefined;

  before(async () => {
    const db = await freshDatabase('rel_fuzz');
    dropDb = db.drop;
    const target = { kind: 'postgres' as const, url: db.url };
    const secret = newSecret();
    merchant = await createMerchant(target, secret, 'Fuzz');
    // No background jobs: this scenario is about the API, and a dispatcher would try to deliver to
    // the public example URLs it saves (a DNS lookup leaving loopback) and change their objects.
    server = await startServer({ target, secret, env: { WEBHOOK_ALLOWLIST: '127.0.0.1', RUN_JOBS: 'false' } });
    api = await loadOpenApi(server.url);
  });
  after(async () => {
    await server?.terminate().catch(() => server.kill9());
    await dropDb();
  });

  it(`${knobs.fuzzRuns} generated requests: no 5xx, every answer matches /openapi.json`, async () => {
    const ops = api.operations.filter((o) => o.method !== 'GET' && !OPS_PATHS.test(o.path));
    assert.ok(
      ops.some((o) => o.path === '/payment/create'),
      'POST /payment/create is in the document',
    );
    const created = await call(server.url, 'POST', '/payment/create', {
      key: merchant.sandboxKey,
      body: quickStartBody(`fz-seed-${Date.now()}`),
    });
    assert.ok(created.ok && created.status === 201);
    const ids = [created.json<{ id: string }>().id];
    const fields = [
      ...new Set(ops.flatMap((o) => Object.keys((o.requestBodySchema?.['properties'] ?? {}) as Record<string, unknown>))),
    ];
    const seed = knobs.fuzzSeed ?? Math.floor(Math.random() * 2 ** 31);
    console.log(
      `# fuzz seed ${seed} (replay: FUZZ_SEED=${seed}); ${knobs.fuzzRuns} requests over ${ops.map((o) => `${o.method} ${o.path}`).join(', ')}`,
    );
    const requests = fc.sample(requestArb(ops, fields, ids), { seed, numRuns: knobs.fuzzRuns });
    const runTag = Date.now().toString(36);

    const failures: string[] = [];
    const tally = new Map<string, number>();
    let next = 0;
    const send = async (i: number, r: FuzzRequest) => {
      const op = ops[r.op] as Operation;
      const path = op.path.replace(/\{[^}]+\}/g, encodeURIComponent(r.pathId));
      const headers: Record<string, string> = {};
      const keys = { sandbox: merchant.sandboxKey, production: merchant.productionKey };
      if (r.auth === 'sandbox' || r.auth === 'production') headers['authorization'] = `Bearer ${keys[r.auth]}`;
      if (r.auth === 'garbage') headers['authorization'] = `Bearer ${r.garbage.replace(/\s/g, '') || 'x'}`;
      if (r.auth === 'malformed') headers['authorization'] = r.garbage;
      headers['content-type'] = r.contentType;
      if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey;
      if (r.apiVersion !== null) headers['api-version'] = r.apiVersion;
      let rawBody: string;
      const base = validBody(op, `fz-${runTag}-${i}`);
      if (r.body.kind === 'valid') rawBody = JSON.stringify(base);
      else if (r.body.kind === 'mutated') {
        const copy: Record<string, unknown> = { ...base };
        if (r.body.action === 'drop') delete copy[r.body.field];
        else
          Object.defineProperty(copy, r.body.field, {
            value: r.body.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        rawBody = JSON.stringify(copy);
      } else if (r.body.kind === 'json') rawBody = JSON.stringify(r.body.value);
      else rawBody = r.body.text;
      const res = await call(server.url, op.method, path, { rawBody, headers, timeoutMs: 10_000 });
      const describeRequest = () =>
        `#${i} ${op.method} ${path} headers=${JSON.stringify(headers)} body=${JSON.stringify(rawBody.slice(0, 300))}`;
      if (!res.ok) {
        failures.push(`${describeRequest()} → no answer (${res.error})`);
        return;
      }
      tally.set(String(res.status), (tally.get(String(res.status)) ?? 0) + 1);
      if (res.status >= 500) failures.push(`${describeRequest()} → ${res.status} ${res.text.slice(0, 300)}`);
      const problem = api.checkResponse(op, res.status, res.headers.get('content-type'), res.text);
      if (problem !== undefined) failures.push(`${describeRequest()} → ${problem}`);
      if (res.status < 300 && r.auth !== 'sandbox' && r.auth !== 'production')
        failures.push(`${describeRequest()} → ${res.status} without a valid key`);
    };
    const worker = async () => {
      for (let i = next++; i < requests.length && failures.length < 20; i = next++) await send(i, requests[i] as FuzzRequest);
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    console.log(
      `# fuzz statuses: ${[...tally.entries()]
        .sort()
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
    assert.deepEqual(failures, [], `seed ${seed}`);
    assert.ok((tally.get('201') ?? 0) > 0, 'some generated requests were valid (2xx schemas were exercised)');
    assert.equal(
      [...tally.values()].reduce((a, b) => a + b, 0),
      knobs.fuzzRuns,
      'every generated request was sent and answered',
    );
    assert.equal(server.child.exitCode, null, 'the server is still running');
  });
});
