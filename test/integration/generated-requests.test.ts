import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Doc,
  type GeneratedRequest,
  injectOptions,
  METHODS,
  type Op,
  operationsOf,
  type Pool,
  requestArbitrary,
  type Sent,
  statedText,
  toSent,
  unstated,
} from '../harness/document-requests.ts';
import { resolve, type Schema } from '../harness/schema-arbitrary.ts';
import { storeDigest } from '../harness/store-digest.ts';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';

/**
 * Requests generated from the document's own request schemas (issue 25), against every
 * operation of /openapi.json:
 *
 * - valid requests (every parameter and body valid by the document) are accepted, or refused only
 *   for a stated reason: an error code, or for `invalid_request` each field issue, that the
 *   operation's own text in the document names (its description or a field's), or
 *   `resource_not_found` for an id; never a 5xx;
 * - mutated requests (one change that breaks a rule the document states) get a 4xx in the error
 *   structure and change nothing in the store (a digest of every table, before and after each
 *   operation's batch).
 *
 * Every answer is also checked against the document by the harness (contract-tap.ts). Seeded:
 * CONTRACT_SEED replays a run, CONTRACT_RUNS sets the requests per operation and kind.
 */
const SEED = Number(process.env['CONTRACT_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env['CONTRACT_RUNS'] ?? 75);
console.log(
  `# generated requests: seed ${SEED} (replay with CONTRACT_SEED=${SEED}), ${RUNS} valid and ${RUNS} mutated per operation`,
);

/** One change that breaks a rule the document states, applied to a valid request. */
type Mutation = { name: string; apply(sent: Sent, request: GeneratedRequest): Sent };

function mutationsOf(op: Op, doc: Doc): Mutation[] {
  const out: Mutation[] = [];
  const documented = Object.keys(doc.paths[op.path] ?? {});
  const other = METHODS.find((m) => !documented.includes(m) && !(m === 'head' && documented.includes('get')));
  if (other !== undefined) out.push({ name: `method ${other}`, apply: (s) => ({ ...s, method: other.toUpperCase() }) });

  for (const p of op.operation.parameters ?? []) {
    const schema = resolve(p.schema, doc.components.schemas);
    const maxLength = schema['maxLength'] as number | undefined;
    if (p.in === 'path') {
      const long = 'x'.repeat(maxLength === undefined ? 201 : maxLength + 1);
      out.push({
        name: `path ${p.name} too long`,
        apply: (s, r) => ({ ...s, url: s.url.replace(encodeURIComponent(r.params[p.name] ?? ''), long) }),
      });
    } else if (p.in === 'query') {
      const bad =
        schema['type'] === 'integer'
          ? 'abc'
          : Array.isArray(schema['enum'])
            ? 'not_a_value'
            : schema['type'] === 'boolean'
              ? 'maybe'
              : maxLength !== undefined
                ? 'x'.repeat(maxLength + 1)
                : undefined;
      for (const value of bad === undefined ? ['a\u0000b'] : [bad, 'a\u0000b']) {
        out.push({
          name: `query ${p.name} invalid (${JSON.stringify(value)})`,
          apply: (s) => {
            const [path, query = ''] = s.url.split('?') as [string, string?];
            const params = new URLSearchParams(query);
            params.set(p.name, value);
            return { ...s, url: `${path}?${params.toString()}` };
          },
        });
      }
    } else if (p.in === 'header' && maxLength !== undefined) {
      out.push({
        name: `header ${p.name} too long`,
        apply: (s) => ({ ...s, headers: { ...s.headers, [p.name]: 'k'.repeat(maxLength + 1) } }),
      });
    }
  }

  const content = op.operation.requestBody?.content['application/json'];
  if (content !== undefined) {
    const schema = resolve(content.schema, doc.components.schemas);
    const withBody = (s: Sent, payload: string, type = 'application/json'): Sent => ({
      ...s,
      headers: { ...s.headers, 'content-type': type },
      payload,
    });
    const bodyOf = (r: GeneratedRequest) => ({ ...((r.body as Record<string, unknown> | undefined) ?? {}) });
    out.push({ name: 'body not JSON', apply: (s) => withBody(s, '{"amount": ') });
    out.push({ name: 'body not an object', apply: (s) => withBody(s, '[1, 2]') });
    out.push({ name: 'body as text/plain', apply: (s) => withBody(s, 'amount=1', 'text/plain') });
    if (schema['additionalProperties'] === false) {
      out.push({ name: 'unknown body field', apply: (s, r) => withBody(s, JSON.stringify({ ...bodyOf(r), zz_not_a_field: 1 })) });
    }
    for (const name of (schema['required'] as string[] | undefined) ?? []) {
      out.push({
        name: `body ${name} missing`,
        apply: (s, r) => {
          const b = bodyOf(r);
          delete b[name];
          return withBody(s, JSON.stringify(b));
        },
      });
    }
    for (const [name, raw] of Object.entries((schema['properties'] as Record<string, Schema> | undefined) ?? {})) {
      const prop = resolve(raw, doc.components.schemas);
      const types = ([] as unknown[]).concat(prop['type'] ?? []);
      const wrong = types.includes('string') ? (types.includes('number') ? [] : 12345) : 'not the right type';
      out.push({
        name: `body ${name} wrong type`,
        apply: (s, r) => withBody(s, JSON.stringify({ ...bodyOf(r), [name]: wrong })),
      });
      if (types.includes('string')) {
        out.push({
          name: `body ${name} with NUL`,
          apply: (s, r) => withBody(s, JSON.stringify({ ...bodyOf(r), [name]: 'a\u0000b' })),
        });
      }
      const maxLength = prop['maxLength'] as number | undefined;
      if (maxLength !== undefined) {
        out.push({
          name: `body ${name} too long`,
          apply: (s, r) => withBody(s, JSON.stringify({ ...bodyOf(r), [name]: 'x'.repeat(maxLength + 1) })),
        });
      }
      const outside = ' not valid ';
      const breaksRule =
        (Array.isArray(prop['enum']) && !prop['enum'].includes(outside)) ||
        (typeof prop['pattern'] === 'string' && !new RegExp(prop['pattern'], 'u').test(outside));
      if (breaksRule) {
        out.push({
          name: `body ${name} outside its rule`,
          apply: (s, r) => withBody(s, JSON.stringify({ ...bodyOf(r), [name]: ' not valid ' })),
        });
      }
    }
  }
  return out;
}

describe('generated requests from /openapi.json (fast-check)', () => {
  const ctx = appForSuite();
  let doc: Doc;
  let ops: Op[];
  const counts = { valid: 0, mutated: 0, accepted: 0 };

  async function refreshPool(): Promise<Pool> {
    const pool: Pool = new Map([['connector', ['sandbox_bank', 'sandbox_ewallet', 'sandbox_counter', 'no_such_connector']]]);
    const tables = await ctx.t.testStore.store.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE table_schema = current_schema() AND column_name = 'id' AND data_type = 'text'`,
    );
    for (const { table_name } of tables) {
      const rows = await ctx.t.testStore.store.query<{ id: string }>(`SELECT id FROM "${table_name}" ORDER BY id DESC LIMIT 10`);
      for (const { id } of rows) {
        const prefix = id.split('_')[0] ?? '';
        pool.set(prefix, [...(pool.get(prefix) ?? []), id]);
      }
    }
    return pool;
  }

  before(async () => {
    const t = ctx.t;
    doc = json(await t.call('GET', '/openapi.json', { key: null })) as unknown as Doc;
    ops = operationsOf(doc);
    // Objects for the generated requests to find: a paid payment with a refund, a pending one,
    // a webhook endpoint, a checkout (their events come with them).
    const paid = await t.paidBankPayment();
    assert.equal((await t.call('POST', `/payment/${paid.id}/refund`, { body: { amount: 1000 } })).statusCode, 201);
    assert.equal((await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) })).statusCode, 201);
    const endpoint = await t.call('POST', '/webhook_endpoint/create', { body: { url: 'https://example.com/hooks' } });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const checkout = await t.call('POST', '/checkout/create', { body: quickStart() });
    assert.equal(checkout.statusCode, 201, checkout.body);
  });

  test('every operation of the document has a request generator and at least one mutation', () => {
    assert.ok(ops.length >= 39, `${ops.length} operations`);
    for (const op of ops) {
      assert.doesNotThrow(() => requestArbitrary(op, doc, new Map()), op.name);
      assert.ok(mutationsOf(op, doc).length > 0, `${op.name} has a rule to break`);
    }
  });

  test('valid requests are accepted, or refused only for a reason the document states', async () => {
    // One example per operation and reason.
    const problems = new Map<string, string>();
    for (const [i, op] of ops.entries()) {
      const pool = await refreshPool();
      const text = statedText(op, doc);
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op, doc, pool), async (request) => {
          const sent = toSent(op, request, ctx.t.a.sandboxKey);
          const res = await ctx.t.app.inject(injectOptions(sent));
          counts.valid += 1;
          if (res.statusCode < 400) counts.accepted += 1;
          for (const reason of unstated(op, text, res)) {
            const kind = `${op.name}: ${reason}`;
            if (!problems.has(kind)) problems.set(kind, `${sent.method} ${sent.url} ${sent.payload ?? ''}`.slice(0, 300));
          }
          return true;
        }),
        { seed: SEED + i, numRuns: RUNS },
      );
    }
    console.log(`# generated requests: ${counts.valid} valid requests to ${ops.length} operations, ${counts.accepted} accepted`);
    assert.deepEqual(Object.fromEntries(problems), {}, 'valid requests refused for reasons the document does not state');
  });

  test('mutated requests get a 4xx in the error structure and change nothing', async () => {
    const problems = new Map<string, string>();
    for (const [i, op] of ops.entries()) {
      const pool = await refreshPool();
      const mutations = mutationsOf(op, doc);
      const digest = await storeDigest(ctx.t.testStore.store);
      await fc.assert(
        fc.asyncProperty(requestArbitrary(op, doc, pool), fc.constantFrom(...mutations), async (request, mutation) => {
          const sent = mutation.apply(toSent(op, request, ctx.t.a.sandboxKey), request);
          const res = await ctx.t.app.inject(injectOptions(sent));
          counts.mutated += 1;
          if (res.statusCode < 400 || res.statusCode >= 500) {
            const kind = `${op.name} (${mutation.name}) → ${res.statusCode}`;
            if (!problems.has(kind)) problems.set(kind, `${sent.method} ${sent.url} ${sent.payload ?? ''}`.slice(0, 300));
          } else {
            const body = JSON.parse(res.body) as Record<string, unknown>;
            assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message', 'request_id']);
          }
          return true;
        }),
        { seed: SEED + 1000 + i, numRuns: RUNS },
      );
      if ((await storeDigest(ctx.t.testStore.store)) !== digest)
        problems.set(`${op.name}: the store changed under refused requests`, '');
    }
    console.log(`# generated requests: ${counts.mutated} mutated requests to ${ops.length} operations, all refused`);
    assert.deepEqual(Object.fromEntries(problems), {}, 'mutated requests not refused');
  });
});
