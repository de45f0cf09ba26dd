import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { appForSuite, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * Issue 25's findings: answers the document did not describe and a document that did not say
 * what the server does. Every answer here also passes through the harness's response check
 * (contract-tap.ts); these tests pin the specific behaviour and the document's wording.
 */
type Doc = {
  paths: Record<string, Record<string, Operation>>;
};
type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
};

async function documentOf(t: TestApp): Promise<Doc> {
  return json(await t.call('GET', '/openapi.json', { key: null })) as unknown as Doc;
}

function bodyProperty(doc: Doc, path: string, method: string, property: string): Record<string, unknown> {
  const schema = doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
  const props = schema?.['properties'] as Record<string, Record<string, unknown>> | undefined;
  const value = props?.[property];
  assert.ok(value !== undefined, `${method} ${path} has no body property ${property}`);
  return value;
}

/** A raw HTTP request on loopback: the path is sent exactly as written (no client normalisation). */
function rawGet(
  baseUrl: string,
  path: string,
  key: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method: 'GET', path, headers: { authorization: `Bearer ${key}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function assertErrorStructure(
  res: { statusCode?: number; status?: number; headers: Record<string, unknown>; body: string },
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(res.statusCode ?? res.status, status, res.body);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'details', 'message', 'request_id']);
  assert.equal(body['code'], code);
  assert.match(String(res.headers['request-id']), /^req_/);
  assert.equal(body['request_id'], res.headers['request-id']);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return body;
}

describe('the published contract (issue 25)', () => {
  const ctx = appForSuite();

  describe("the router's own refusals use the error structure", () => {
    test('a path parameter longer than the router allows: 400 invalid_request, not 414 FST_ERR_MAX_PARAM_LENGTH', async () => {
      for (const path of [`/payment/${'x'.repeat(201)}`, `/pay/${'p'.repeat(300)}`, `/event/${'e'.repeat(1000)}/deliveries`]) {
        const res = await ctx.t.call('GET', path);
        const body = assertErrorStructure(res, 400, 'invalid_request');
        assert.deepEqual(
          (body['details'] as { issue: string }[]).map((d) => d.issue),
          ['too_long'],
        );
      }
    });

    test('a malformed percent-encoding in the path: 400 invalid_request, not FST_ERR_BAD_URL', async () => {
      const injected = await ctx.t.call('GET', '/payment/%E0%A4%A');
      assertErrorStructure(injected, 400, 'invalid_request');
      // Over real HTTP too, where no client can tidy the path first.
      const raw = await rawGet(ctx.t.baseUrl, '/refund/%zz', ctx.t.a.sandboxKey);
      const body = assertErrorStructure(raw, 400, 'invalid_request');
      assert.deepEqual((body['details'] as { field: string; issue: string }[])[0], {
        field: 'path',
        issue: 'invalid_format',
        message: 'the path has a malformed percent-encoding',
      });
    });

    test('an unknown method on a known path: 405 method_not_allowed with Allow; an unknown path: 404 route_not_found', async () => {
      const del = await ctx.t.call('DELETE', '/payment/create');
      assertErrorStructure(del, 405, 'method_not_allowed');
      assert.equal(del.headers['allow'], 'GET, HEAD, POST', 'POST /payment/create, GET /payment/{id} match this path');
      const put = await ctx.t.app.inject({
        method: 'PUT',
        url: '/balance',
        headers: { authorization: `Bearer ${ctx.t.a.sandboxKey}` },
      });
      assertErrorStructure(put, 405, 'method_not_allowed');
      assert.equal(put.headers['allow'], 'GET, HEAD');
      const unknown = await ctx.t.call('GET', '/no/such/path');
      assertErrorStructure(unknown, 404, 'route_not_found');
      const unknownPost = await ctx.t.call('POST', '/balance/nothing', { body: {} });
      assertErrorStructure(unknownPost, 404, 'route_not_found');
    });
  });

  test('the NUL character anywhere (query, path, any body field) is 400 invalid_character, never a 500', async () => {
    // Found by the reliability fuzz and a probe after it: PostgreSQL text cannot hold U+0000.
    for (const url of [
      '/payment?reference_no=a%00b',
      '/settlement?connector=a%00',
      '/settlement_exception?connector=a%00',
      '/event?object_id=a%00',
    ]) {
      const body = assertErrorStructure(await ctx.t.call('GET', url), 400, 'invalid_request');
      assert.equal((body['details'] as { issue: string }[])[0]?.issue, 'invalid_character', url);
    }
    const endpoint = await ctx.t.call('POST', '/webhook_endpoint/create', {
      body: { url: 'https://example.com/hooks', description: 'a\u0000b' },
    });
    const body = assertErrorStructure(endpoint, 400, 'invalid_request');
    assert.deepEqual(
      (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
      [['description', 'invalid_character']],
    );
  });

  test('GET /event with an unknown starting_after answers unknown_cursor, like every other list', async () => {
    for (const cursor of ['evt_01M7YRRT80TD1KF0H863HPQAAG', 'pay_01M7YRRT80TD1KF0H863HPQAAG', 'nonsense']) {
      const res = await ctx.t.call('GET', `/event?starting_after=${cursor}`);
      const body = assertErrorStructure(res, 400, 'invalid_request');
      assert.deepEqual(body['details'], [
        {
          field: 'query.starting_after',
          issue: 'unknown_cursor',
          message: 'starting_after must be the id of one of your events in this environment',
        },
      ]);
    }
  });

  test('public operations say so (security: []) and answer without a key', async () => {
    const doc = await documentOf(ctx.t);
    for (const [path, method] of [
      ['/healthz', 'get'],
      ['/readyz', 'get'],
      ['/provider/{connector}/callback', 'post'],
      ['/pay/{id}', 'get'],
      ['/pay/{id}/status', 'get'],
      ['/checkout/{id}/select', 'post'],
    ] as const) {
      assert.deepEqual(doc.paths[path]?.[method]?.security, [], `${method} ${path}`);
    }
    assert.equal((await ctx.t.call('GET', '/healthz', { key: null })).statusCode, 200);
    assert.equal((await ctx.t.call('GET', '/readyz', { key: null })).statusCode, 200);
    const callback = await ctx.t.call('POST', '/provider/sandbox_bank/callback', { key: null, rawBody: '{}' });
    assertErrorStructure(callback, 401, 'invalid_signature');
    // A keyed operation still says it needs the key (the document's default).
    assert.equal(doc.paths['/payment/create']?.['post']?.security, undefined);
  });

  test('every response of every operation declares the Request-Id header it carries', async () => {
    const doc = (await documentOf(ctx.t)) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> }>>;
    };
    let responses = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          responses += 1;
          assert.equal(response.headers?.['Request-Id']?.required, true, `${method} ${path} ${status}`);
          if (/^[45]/.test(status)) assert.ok(response.headers?.['Retry-After'], `${method} ${path} ${status}`);
        }
      }
    }
    assert.ok(responses > 100, `${responses} responses`);
  });

  test('optional bodies are optional in the document, and no body is accepted as {}', async () => {
    const doc = await documentOf(ctx.t);
    const optional = [
      ['/callback_secret/rotate', 'post'],
      ['/event/{id}/redeliver', 'post'],
      ['/payment/{id}/cancel', 'post'],
      ['/payment/{id}/refund', 'post'],
      ['/webhook_endpoint/{id}/rotate_secret', 'post'],
      ['/checkout/{id}/expire', 'post'],
    ] as const;
    for (const [path, method] of optional)
      assert.equal(doc.paths[path]?.[method]?.requestBody?.required, false, `${method} ${path}`);
    assert.equal(doc.paths['/payment/create']?.['post']?.requestBody?.required, true);

    assert.equal((await ctx.t.call('POST', '/callback_secret/rotate')).statusCode, 200);
    const created = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
    assert.equal(created.statusCode, 201, created.body);
    const canceled = await ctx.t.call('POST', `/payment/${String(json(created)['id'])}/cancel`);
    assert.equal(canceled.statusCode, 200, canceled.body);
    assert.equal(json(canceled)['status'], 'canceled');
  });

  describe('rules that were only prose are in the document, and the server keeps to them', () => {
    test('Idempotency-Key: length and characters in the header schema; breaking them is still invalid_idempotency_key', async () => {
      const doc = await documentOf(ctx.t);
      for (const [path, method] of [
        ['/payment/create', 'post'],
        ['/payment/{id}/refund', 'post'],
        ['/payment/{id}/cancel', 'post'],
      ] as const) {
        const header = doc.paths[path]?.[method]?.parameters?.find((p) => p.in === 'header' && p.name === 'idempotency-key');
        assert.ok(header, `${method} ${path} documents Idempotency-Key`);
        assert.equal(header.schema['minLength'], 1);
        assert.equal(header.schema['maxLength'], 255);
        assert.equal(header.schema['pattern'], '^[!-~](?:[ -~]{0,253}[!-~])?$');
      }
      for (const key of ['k'.repeat(256), 'a\tb']) {
        const res = await ctx.t.call('POST', '/payment/create', { body: quickStart(), headers: { 'idempotency-key': key } });
        assertErrorStructure(res, 400, 'invalid_idempotency_key');
      }
      const ok = await ctx.t.call('POST', '/payment/create', {
        body: quickStart(),
        headers: { 'idempotency-key': 'k'.repeat(255) },
      });
      assert.equal(ok.statusCode, 201, ok.body);
    });

    test('currency, e-mail, metadata, amount: the document says what the server refuses', async () => {
      const doc = await documentOf(ctx.t);
      assert.equal(bodyProperty(doc, '/payment/create', 'post', 'currency')['pattern'], '^[A-Z]{3}$');
      assert.equal(bodyProperty(doc, '/checkout/create', 'post', 'currency')['pattern'], '^[A-Z]{3}$');
      const email = bodyProperty(doc, '/payment/create', 'post', 'email');
      assert.ok(typeof email['pattern'] === 'string');
      const emailRule = new RegExp(email['pattern'] as string, 'u');
      assert.equal(emailRule.test('payer@example.com'), true);
      assert.equal(emailRule.test('payer@localhost'), false, 'the server requires a dot in the domain');
      const metadata = bodyProperty(doc, '/payment/create', 'post', 'metadata');
      assert.deepEqual(metadata['propertyNames'], { pattern: '^[A-Za-z0-9_.:-]{1,40}$' });
      const valueRule = metadata['additionalProperties'] as Record<string, unknown>;
      assert.equal(valueRule?.['maxLength'], 500);
      assert.equal(valueRule?.['pattern'], '^[^\\u0000]*$');
      assert.equal(bodyProperty(doc, '/payment/create', 'post', 'amount')['maximum'], 999_999_999_999_999);
      const refundAmount = bodyProperty(doc, '/payment/{id}/refund', 'post', 'amount');
      assert.equal(refundAmount['exclusiveMinimum'], 0);
      assert.equal(refundAmount['maximum'], 999_999_999_999_999);
      assert.match(String(refundAmount['description']), /amount_too_precise/);

      const refused = async (overrides: Record<string, unknown>, field: string, issue: string) => {
        const res = await ctx.t.call('POST', '/payment/create', { body: quickStart(overrides) });
        const body = assertErrorStructure(res, 400, 'invalid_request');
        assert.deepEqual(
          (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
          [[field, issue]],
          res.body,
        );
      };
      await refused({ currency: 'idr' }, 'currency', 'invalid_format');
      await refused({ currency: 'XYZ' }, 'currency', 'unknown_currency');
      await refused({ email: 'payer@localhost' }, 'email', 'invalid_format');
      await refused({ metadata: { note: 'a\u0000b' } }, 'metadata.note', 'invalid_character');
      await refused({ description: 'a\u0000b' }, 'description', 'invalid_character');
      await refused({ metadata: { 'bad key': 'x' } }, 'metadata.bad key', 'invalid_metadata_key');
      await refused({ amount: 1_000_000_000_000_000 }, 'amount', 'amount_too_large');
      await refused({ callback_url: 'not a url' }, 'callback_url', 'invalid_url');
    });

    test('webhook endpoints: url is a URI, enabled_events has at least one entry', async () => {
      const doc = await documentOf(ctx.t);
      for (const [path, method] of [
        ['/webhook_endpoint/create', 'post'],
        ['/webhook_endpoint/{id}/update', 'post'],
      ] as const) {
        assert.equal(bodyProperty(doc, path, method, 'url')['format'], 'uri');
        assert.equal(bodyProperty(doc, path, method, 'enabled_events')['minItems'], 1);
      }
      const empty = await ctx.t.call('POST', '/webhook_endpoint/create', {
        body: { url: 'https://example.com/hooks', enabled_events: [] },
      });
      const body = assertErrorStructure(empty, 400, 'invalid_request');
      assert.deepEqual(
        (body['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
        [['enabled_events', 'too_short']],
      );
      const notUrl = await ctx.t.call('POST', '/webhook_endpoint/create', { body: { url: 'example dot com' } });
      const urlBody = assertErrorStructure(notUrl, 400, 'invalid_request');
      assert.deepEqual(
        (urlBody['details'] as { field: string; issue: string }[]).map((d) => [d.field, d.issue]),
        [['url', 'invalid_url']],
      );
    });
  });
});
