import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../harness/test-app.ts';

describe('reference and operations routes', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('GET /openapi.json is OpenAPI 3.1 generated from the validating schemas', async () => {
    const res = await t.call('GET', '/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    const doc = JSON.parse(res.body) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                { schema: { properties: Record<string, unknown>; additionalProperties: boolean; required: string[] } }
              >;
            };
          }
        >
      >;
      components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
    };
    assert.equal(doc.openapi, '3.1.0');
    const create = doc.paths['/payment/create']?.['post'];
    const schema = create?.requestBody?.content['application/json']?.schema;
    assert.ok(schema);
    assert.deepEqual(Object.keys(schema.properties).sort(), [
      'amount',
      'callback_url',
      'channel',
      'currency',
      'description',
      'email',
      'metadata',
      'reference_no',
    ]);
    assert.deepEqual(schema.required.sort(), ['amount', 'currency', 'reference_no']);
    assert.equal(schema.additionalProperties, false);
    assert.ok(doc.paths['/payment/{id}']?.['get']);
    assert.ok(doc.components.schemas['Payment']);
    assert.ok(doc.components.schemas['Error']);
    assert.ok(doc.components.securitySchemes['bearerAuth']);
  });

  it('GET /docs serves the reference page from local files', async () => {
    const page = await t.call('GET', '/docs', { key: null });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html/i);
    assert.doesNotMatch(
      page.body,
      /https?:\/\/(?!127\.0\.0\.1)[a-z0-9.-]+\.(com|net|io|org)\/[^"']*\.(js|css)/i,
      'no CDN assets',
    );
  });

  it('GET /healthz and /readyz answer without a key', async () => {
    assert.equal((await t.call('GET', '/healthz', { key: null })).statusCode, 200);
    const ready = await t.call('GET', '/readyz', { key: null });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(JSON.parse(ready.body), { status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });
});
