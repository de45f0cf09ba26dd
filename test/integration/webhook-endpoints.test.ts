import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, json, type TestApp } from '../harness/test-app.ts';

describe('webhook endpoints API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ webhookAllowlist: ['127.0.0.1'] });
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>, key?: string) =>
    t.call('POST', '/webhook_endpoint/create', { body, ...(key === undefined ? {} : { key }) });

  it('creates an endpoint, shows its whsec_ secret once, and never again', async () => {
    const res = await create({
      url: 'https://shop.example.com/hooks',
      description: 'orders',
      enabled_events: ['payment.succeeded'],
    });
    assert.equal(res.statusCode, 201, res.body);
    const e = json(res);
    assert.match(String(e['id']), /^we_[0-9A-Z]{26}$/);
    assert.match(String(e['secret']), /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(e['object'], 'webhook_endpoint');
    assert.equal(e['status'], 'enabled');
    assert.equal(e['disabled_reason'], null);
    assert.deepEqual(e['enabled_events'], ['payment.succeeded']);
    assert.equal(e['environment'], 'sandbox');
    assert.equal(e['version'], 1);
    const got = await t.call('GET', `/webhook_endpoint/${String(e['id'])}`);
    assert.equal(got.statusCode, 200);
    assert.equal(json(got)['secret'], undefined);
    assert.ok(!got.body.includes(String(e['secret'])));
    const list = json(await t.call('GET', '/webhook_endpoint'));
    assert.equal(list['object'], 'list');
    assert.ok((list['data'] as { id: string; secret?: string }[]).some((x) => x.id === e['id'] && x.secret === undefined));
    // Stored sealed: the table never holds the secret in clear text.
    const rows = await t.testStore.store.query<{ secret_ciphertext: string }>(
      'SELECT secret_ciphertext FROM webhook_endpoints WHERE id = $1',
      [e['id']],
    );
    assert.ok(rows[0] !== undefined && !rows[0].secret_ciphertext.includes(String(e['secret']).slice(6, 20)));
  });

  it('defaults to every event type', async () => {
    const e = json(await create({ url: 'https://shop.example.com/all' }));
    assert.deepEqual(e['enabled_events'], ['*']);
  });

  it('refuses a loopback endpoint with the two ways to receive events locally in its details, storing nothing', async () => {
    const count = async () =>
      Number((await t.testStore.store.query<{ n: string }>('SELECT count(*) AS n FROM webhook_endpoints', []))[0]?.n);
    const before = await count();
    // This app allow-lists 127.0.0.1 only: [::1] is loopback and not on the list.
    const res = await create({ url: 'http://[::1]:3000/hook' });
    assert.equal(res.statusCode, 400, res.body);
    const details = json(res)['details'] as { field: string; issue: string; message: string }[];
    const detail = details.find((d) => d.field === 'url');
    assert.equal(detail?.issue, 'private_address');
    assert.match(detail.message, /^address not allowed: loopback/);
    assert.match(detail.message, /WEBHOOK_ALLOWLIST/);
    assert.match(detail.message, /tributary listen --forward-to/);
    const named = await create({ url: 'http://localhost:3000/hook' });
    assert.equal(named.statusCode, 400, named.body);
    assert.match(JSON.stringify(json(named)['details']), /WEBHOOK_ALLOWLIST.*tributary listen/);
    assert.equal(await count(), before);
  });

  it('refuses unsafe or malformed URLs and unknown event types with field issues', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ url: 'http://10.0.0.1/hook' }, 'url', 'private_address'],
      [{ url: 'http://169.254.169.254/latest' }, 'url', 'private_address'],
      [{ url: 'http://[::ffff:10.0.0.1]/hook' }, 'url', 'private_address'],
      [{ url: 'http://metadata.google.internal/' }, 'url', 'private_address'],
      [{ url: 'ftp://shop.example.com/' }, 'url', 'unsupported_scheme'],
      [{ url: 'https://user:pw@shop.example.com/' }, 'url', 'credentials_in_url'],
      [{ url: 'https://shop.example.com:22/' }, 'url', 'port_not_allowed'],
      [{ url: 'not a url' }, 'url', 'invalid_url'],
      [{ url: 'https://shop.example.com/', enabled_events: ['payment.sucseeded'] }, 'enabled_events', 'unknown_event_type'],
      [{ url: 'https://shop.example.com/', enabled_events: ['*', 'payment.failed'] }, 'enabled_events', 'invalid_value'],
      [{ url: 'https://shop.example.com/', enabled_events: [] }, 'enabled_events', 'too_short'],
      [{ url: 'https://shop.example.com/', secret: 'whsec_mine' }, 'secret', 'unknown_field'],
    ];
    for (const [body, field, issue] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      const details = json(res)['details'] as { field: string; issue: string }[];
      assert.ok(
        details.some((d) => d.field === field && d.issue === issue),
        `${JSON.stringify(body)} → ${JSON.stringify(details)}`,
      );
    }
  });

  it('requires https in production', async () => {
    const res = await create({ url: 'http://shop.example.com/hook' }, t.a.productionKey);
    assert.equal(res.statusCode, 400);
    assert.equal((json(res)['details'] as { issue: string }[])[0]?.issue, 'https_required');
    assert.equal((await create({ url: 'https://shop.example.com/hook' }, t.a.productionKey)).statusCode, 201);
  });

  it('updates fields, disables and re-enables', async () => {
    const e = json(await create({ url: 'https://shop.example.com/u' }));
    const id = String(e['id']);
    const up = await t.call('POST', `/webhook_endpoint/${id}/update`, {
      body: { url: 'https://shop.example.com/v2', enabled_events: ['payment.failed', 'payment.succeeded'], description: null },
    });
    assert.equal(up.statusCode, 200, up.body);
    assert.equal(json(up)['url'], 'https://shop.example.com/v2');
    assert.deepEqual(json(up)['enabled_events'], ['payment.failed', 'payment.succeeded']);
    assert.equal(json(up)['version'], 2);
    const off = json(await t.call('POST', `/webhook_endpoint/${id}/update`, { body: { status: 'disabled' } }));
    assert.equal(off['status'], 'disabled');
    assert.equal(off['disabled_reason'], 'manual');
    const on = json(await t.call('POST', `/webhook_endpoint/${id}/update`, { body: { status: 'enabled' } }));
    assert.equal(on['status'], 'enabled');
    assert.equal(on['disabled_reason'], null);
    assert.equal(on['version'], 4);
    const bad = await t.call('POST', `/webhook_endpoint/${id}/update`, { body: { url: 'http://127.0.0.2/' } });
    assert.equal(bad.statusCode, 400);
  });

  it('rotates the secret: the new one is shown once, the old one keeps signing for the overlap', async () => {
    const e = json(await create({ url: 'https://shop.example.com/r' }));
    const id = String(e['id']);
    const rotated = await t.call('POST', `/webhook_endpoint/${id}/rotate_secret`, { body: { expire_previous_in_seconds: 3600 } });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const r = json(rotated);
    assert.notEqual(r['secret'], e['secret']);
    assert.match(String(r['secret']), /^whsec_/);
    assert.equal(new Date(String(r['previous_secret_expires_at'])).getTime(), t.clock.now().getTime() + 3_600_000);
    // Without a body: the default overlap of 24 hours.
    const again = json(await t.call('POST', `/webhook_endpoint/${id}/rotate_secret`));
    assert.equal(new Date(String(again['previous_secret_expires_at'])).getTime(), t.clock.now().getTime() + 86_400_000);
    const now = json(await t.call('POST', `/webhook_endpoint/${id}/rotate_secret`, { body: { expire_previous_in_seconds: 0 } }));
    assert.equal(now['previous_secret_expires_at'], null);
    const tooLong = await t.call('POST', `/webhook_endpoint/${id}/rotate_secret`, {
      body: { expire_previous_in_seconds: 8 * 86400 },
    });
    assert.equal(tooLong.statusCode, 400);
  });

  it('deletes: then it is gone for every operation', async () => {
    const id = String(json(await create({ url: 'https://shop.example.com/d' }))['id']);
    const del = await t.call('DELETE', `/webhook_endpoint/${id}`);
    assert.equal(del.statusCode, 200);
    assert.deepEqual(json(del), { id, object: 'webhook_endpoint', deleted: true });
    assert.equal((await t.call('GET', `/webhook_endpoint/${id}`)).statusCode, 404);
    assert.equal((await t.call('DELETE', `/webhook_endpoint/${id}`)).statusCode, 404);
    assert.equal((await t.call('POST', `/webhook_endpoint/${id}/update`, { body: { description: 'x' } })).statusCode, 404);
    assert.ok(!(json(await t.call('GET', '/webhook_endpoint'))['data'] as { id: string }[]).some((x) => x.id === id));
  });

  it("answers another merchant's or the other environment's endpoint exactly like an unknown one", async () => {
    const id = String(json(await create({ url: 'https://shop.example.com/iso' }))['id']);
    const unknown = await t.call('GET', '/webhook_endpoint/we_00000000000000000000000000');
    for (const key of [t.b.sandboxKey, t.a.productionKey]) {
      for (const [method, path, body] of [
        ['GET', `/webhook_endpoint/${id}`, undefined],
        ['POST', `/webhook_endpoint/${id}/update`, { description: 'mine now' }],
        ['POST', `/webhook_endpoint/${id}/rotate_secret`, {}],
        ['DELETE', `/webhook_endpoint/${id}`, undefined],
      ] as const) {
        const res = await t.call(method, path, { key, ...(body === undefined ? {} : { body }) });
        assert.equal(res.statusCode, 404, `${method} ${path}`);
        assert.equal(json(res)['code'], json(unknown)['code']);
        assert.equal(json(res)['message'], json(unknown)['message']);
      }
      assert.ok(!(json(await t.call('GET', '/webhook_endpoint', { key }))['data'] as { id: string }[]).some((x) => x.id === id));
    }
    assert.equal((await t.call('GET', '/webhook_endpoint/not-an-id')).statusCode, 404);
    assert.equal(json(await t.call('GET', `/webhook_endpoint/${id}`))['description'], null, 'unchanged');
  });

  it('limits endpoints per environment', async () => {
    const key = t.b.productionKey;
    for (let i = 0; i < 20; i += 1) assert.equal((await create({ url: `https://shop.example.com/n${i}` }, key)).statusCode, 201);
    const res = await create({ url: 'https://shop.example.com/n21' }, key);
    assert.equal(res.statusCode, 422);
    assert.equal(json(res)['code'], 'webhook_endpoint_limit_reached');
  });

  it('requires an API key', async () => {
    assert.equal((await t.call('GET', '/webhook_endpoint', { key: null })).statusCode, 401);
    assert.equal(
      (await t.call('POST', '/webhook_endpoint/create', { key: null, body: { url: 'https://a.example.com' } })).statusCode,
      401,
    );
  });
});

describe('callback secret API', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('shows the secret on the first read only, and a rotation shows the new one once', async () => {
    const first = json(await t.call('GET', '/callback_secret'));
    assert.equal(first['object'], 'callback_secret');
    assert.match(String(first['secret']), /^whsec_/);
    assert.ok(first['revealed_at'] !== null);
    const second = json(await t.call('GET', '/callback_secret'));
    assert.equal(second['secret'], null);
    assert.equal(second['created_at'], first['created_at']);
    const rotated = json(await t.call('POST', '/callback_secret/rotate', { body: { expire_previous_in_seconds: 600 } }));
    assert.match(String(rotated['secret']), /^whsec_/);
    assert.notEqual(rotated['secret'], first['secret']);
    assert.equal(new Date(String(rotated['previous_secret_expires_at'])).getTime(), t.clock.now().getTime() + 600_000);
    assert.equal(json(await t.call('GET', '/callback_secret'))['secret'], null);
  });

  it('is per merchant and environment', async () => {
    const a = json(await t.call('GET', '/callback_secret', { key: t.a.productionKey }));
    const b = json(await t.call('GET', '/callback_secret', { key: t.b.sandboxKey }));
    assert.match(String(a['secret']), /^whsec_/);
    assert.match(String(b['secret']), /^whsec_/);
    assert.notEqual(a['secret'], b['secret']);
    assert.equal(a['environment'], 'production');
  });
});
