import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { EVENT_TYPES } from '../../src/modules/events/event-types.ts';
import { json, quickStart } from '../harness/test-app.ts';
import { createWebhookTestbed, type WebhookTestbed } from '../harness/webhook-testbed.ts';

const addFormats = addFormatsModule.default;

interface Doc {
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object; example: unknown } } } } }>;
  components: { schemas: Record<string, object> };
}

describe('OpenAPI: webhooks and the event/endpoint paths', () => {
  let w: WebhookTestbed;
  let doc: Doc;
  let ajv: Ajv;
  before(async () => {
    w = await createWebhookTestbed();
    doc = JSON.parse((await w.t.call('GET', '/openapi.json', { key: null })).body) as Doc;
    ajv = new Ajv({ strict: false });
    addFormats(ajv);
    // Component refs become plain schema ids so that ajv resolves them.
    const local = <T>(v: T): T => JSON.parse(JSON.stringify(v).replaceAll('#/components/schemas/', '')) as T;
    for (const [name, schema] of Object.entries(doc.components.schemas)) ajv.addSchema({ ...local(schema), $id: name });
    for (const [type, hook] of Object.entries(doc.webhooks)) {
      ajv.addSchema({ ...local(hook.post.requestBody.content['application/json'].schema), $id: `webhook-${type}` });
    }
  });
  after(() => w.close());

  it('publishes one webhook per event type, each with an example that matches its schema', () => {
    assert.deepEqual(Object.keys(doc.webhooks).sort(), EVENT_TYPES.map((e) => e.type).sort());
    for (const [type, hook] of Object.entries(doc.webhooks)) {
      const validate = ajv.getSchema(`webhook-${type}`);
      assert.ok(validate !== undefined, type);
      const example = hook.post.requestBody.content['application/json'].example;
      assert.ok(validate(example), `${type}: ${JSON.stringify(validate.errors)}`);
    }
    const pending = JSON.stringify(doc.webhooks['payment.pending']);
    assert.ok(pending.includes('#/components/schemas/Payment'), 'payment events reference the Payment schema');
    assert.ok(JSON.stringify(doc.webhooks['webhook_endpoint.disabled']).includes('#/components/schemas/WebhookEndpoint'));
  });

  it('documents what is really sent: a delivered body validates against its webhook schema', async () => {
    await w.createEndpoint({ url: w.receiver.url('/spec') });
    assert.equal((await w.t.call('POST', '/payment/create', { body: quickStart() })).statusCode, 201);
    await w.dispatcher.drain();
    const [req] = w.receiver.requests;
    assert.ok(req !== undefined);
    const validate = ajv.getSchema('webhook-payment.pending');
    assert.ok(validate?.(JSON.parse(req.body)), JSON.stringify(validate?.errors));
    const event = json(await w.t.call('GET', '/event'))['data'] as unknown[];
    assert.ok(ajv.getSchema('Event')?.(event[0]));
  });

  it('lists the endpoint, event and callback-secret operations', () => {
    for (const [path, method] of [
      ['/webhook_endpoint/create', 'post'],
      ['/webhook_endpoint', 'get'],
      ['/webhook_endpoint/{id}', 'get'],
      ['/webhook_endpoint/{id}/update', 'post'],
      ['/webhook_endpoint/{id}/rotate_secret', 'post'],
      ['/webhook_endpoint/{id}', 'delete'],
      ['/event', 'get'],
      ['/event/{id}', 'get'],
      ['/event/{id}/deliveries', 'get'],
      ['/event/{id}/redeliver', 'post'],
      ['/callback_secret', 'get'],
      ['/callback_secret/rotate', 'post'],
    ] as const) {
      assert.ok(doc.paths[path]?.[method] !== undefined, `${method.toUpperCase()} ${path}`);
    }
  });
});
