import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { json, quickStart } from '../harness/test-app.ts';
import { createWebhookTestbed, eventIdOf, type WebhookTestbed } from '../harness/webhook-testbed.ts';

interface EventJson {
  id: string;
  type: string;
  created_at: string;
  data: { object: { id: string; version: number } };
}

describe('event log API', () => {
  let w: WebhookTestbed;
  const ids: string[] = [];
  before(async () => {
    w = await createWebhookTestbed();
    // Five events of merchant A (sandbox), one second apart, and one of B and of A's production.
    for (const [type, objectId] of [
      ['payment.pending', 'pay_AAAA0000000000000000000001'],
      ['payment.succeeded', 'pay_AAAA0000000000000000000001'],
      ['payment.pending', 'pay_AAAA0000000000000000000002'],
      ['refund.succeeded', 'ref_AAAA0000000000000000000001'],
      ['payment.failed', 'pay_AAAA0000000000000000000002'],
    ] as const) {
      ids.push(await w.emit(type, { objectId }));
      w.clock.advance(1000);
    }
    await w.emit('payment.pending', { m: w.t.b, objectId: 'pay_BBBB0000000000000000000001' });
  });
  after(() => w.close());

  const list = async (query: string, key?: string) => {
    const res = await w.t.call('GET', `/event${query}`, key === undefined ? {} : { key });
    assert.equal(res.statusCode, 200, res.body);
    return json(res) as { object: string; data: EventJson[]; has_more: boolean };
  };

  it('lists newest first, pages with starting_after and limit', async () => {
    const all = await list('');
    assert.equal(all.object, 'list');
    assert.deepEqual(
      all.data.map((e) => e.id),
      [...ids].reverse(),
    );
    assert.equal(all.has_more, false);
    const page1 = await list('?limit=2');
    assert.deepEqual(
      page1.data.map((e) => e.id),
      [ids[4], ids[3]],
    );
    assert.equal(page1.has_more, true);
    const page2 = await list(`?limit=2&starting_after=${ids[3]}`);
    assert.deepEqual(
      page2.data.map((e) => e.id),
      [ids[2], ids[1]],
    );
    const page3 = await list(`?limit=2&starting_after=${ids[1]}`);
    assert.deepEqual(
      page3.data.map((e) => e.id),
      [ids[0]],
    );
    assert.equal(page3.has_more, false);
  });

  it('filters by type, type group and object', async () => {
    assert.deepEqual(
      (await list('?type=payment.pending')).data.map((e) => e.id),
      [ids[2], ids[0]],
    );
    assert.deepEqual(
      (await list('?type=refund.*')).data.map((e) => e.type),
      ['refund.succeeded'],
    );
    assert.equal((await list('?type=payment.*')).data.length, 4);
    assert.deepEqual(
      (await list('?object_id=pay_AAAA0000000000000000000002')).data.map((e) => e.id),
      [ids[4], ids[2]],
    );
    assert.deepEqual((await list('?type=payment.settled')).data, []);
  });

  it('refuses bad queries', async () => {
    for (const q of [
      '?limit=0',
      '?limit=101',
      '?type=PAYMENT',
      '?type=payment.*.x',
      '?starting_after=evt_00000000000000000000000000',
      '?foo=1',
    ]) {
      const res = await w.t.call('GET', `/event${q}`);
      assert.equal(res.statusCode, 400, `${q}: ${res.body}`);
      assert.equal(json(res)['code'], 'invalid_request');
    }
  });

  it('retrieves one event, exactly as listed', async () => {
    const one = await w.t.call('GET', `/event/${ids[1]}`);
    assert.equal(one.statusCode, 200);
    const e = json(one) as unknown as EventJson;
    assert.equal(e.type, 'payment.succeeded');
    assert.deepEqual(
      e,
      (await list('')).data.find((x) => x.id === ids[1]),
    );
  });

  it("hides other tenants' events: same 404 as an unknown id, everywhere", async () => {
    const unknown = json(await w.t.call('GET', '/event/evt_00000000000000000000000000'));
    for (const key of [w.t.b.sandboxKey, w.t.a.productionKey]) {
      assert.ok(!(await list('', key)).data.some((e) => ids.includes(e.id)));
      for (const [method, path] of [
        ['GET', `/event/${ids[0]}`],
        ['GET', `/event/${ids[0]}/deliveries`],
        ['POST', `/event/${ids[0]}/redeliver`],
      ] as const) {
        const res = await w.t.call(method, path, { key, ...(method === 'POST' ? { body: {} } : {}) });
        assert.equal(res.statusCode, 404, `${method} ${path}`);
        assert.equal(json(res)['message'], unknown['message']);
      }
      const cursor = await w.t.call('GET', `/event?starting_after=${ids[0]}`, { key });
      assert.equal(cursor.statusCode, 400, "another tenant's id is no cursor");
    }
  });
});

describe('redelivery', () => {
  let w: WebhookTestbed;
  before(async () => {
    w = await createWebhookTestbed();
  });
  after(() => w.close());

  const redeliver = (eventId: string, body?: Record<string, unknown>, key?: string) =>
    w.t.call('POST', `/event/${eventId}/redeliver`, {
      ...(body === undefined ? {} : { body }),
      ...(key === undefined ? {} : { key }),
    });

  it('sends an event again to every subscribed endpoint and the callback_url, with the same webhook-id', async () => {
    const ep = await w.createEndpoint({ url: w.receiver.url('/r-all'), enabled_events: ['payment.pending'] });
    await w.createEndpoint({ url: w.receiver.url('/r-other'), enabled_events: ['refund.failed'] });
    const payment = json(
      await w.t.call('POST', '/payment/create', { body: quickStart({ callback_url: w.receiver.url('/r-cb') }) }),
    );
    await w.dispatcher.drain();
    const eventId = eventIdOf(w.receiver.requests.find((r) => r.path === '/r-all') ?? w.receiver.requests[0]!);
    const res = await redeliver(eventId);
    assert.equal(res.statusCode, 202, res.body);
    const scheduled = json(res)['data'] as { trigger: string; target: string; endpoint_id: string | null; status: string }[];
    assert.equal(scheduled.length, 2);
    assert.ok(scheduled.every((d) => d.trigger === 'redelivery' && d.status === 'pending'));
    assert.deepEqual(scheduled.map((d) => d.target).sort(), ['callback_url', 'webhook_endpoint']);
    await w.dispatcher.drain();
    for (const path of ['/r-all', '/r-cb']) {
      const got = w.receiver.requests.filter((r) => r.path === path);
      assert.equal(got.length, 2, path);
      assert.equal(eventIdOf(got[0]!), eventIdOf(got[1]!), 'same webhook-id');
      assert.equal(got[0]?.body, got[1]?.body, 'same body');
    }
    assert.equal(w.receiver.requests.filter((r) => r.path === '/r-other').length, 0);
    const log = json(await w.t.call('GET', `/event/${eventId}/deliveries`))['data'] as {
      trigger: string;
      status: string;
      endpoint_id: string;
    }[];
    assert.deepEqual(log.map((d) => `${d.trigger}:${d.status}`).sort(), [
      'event:succeeded',
      'event:succeeded',
      'redelivery:succeeded',
      'redelivery:succeeded',
    ]);
    assert.ok(String(payment['id']).startsWith('pay_') && ep.id.startsWith('we_'));
  });

  it('sends to one endpoint only, even one not subscribed to the type, or to the callback_url only', async () => {
    const target = await w.createEndpoint({ url: w.receiver.url('/r-one'), enabled_events: ['reconciliation.completed'] });
    const eventId = await w.emit('payment.canceled');
    await w.dispatcher.drain();
    assert.equal(w.receiver.requests.filter((r) => r.path === '/r-one').length, 0);
    const res = await redeliver(eventId, { endpoint_id: target.id });
    assert.equal(res.statusCode, 202, res.body);
    assert.equal((json(res)['data'] as unknown[]).length, 1);
    await w.dispatcher.drain();
    assert.deepEqual(w.receiver.requests.filter((r) => r.path === '/r-one').map(eventIdOf), [eventId]);
    const noCallback = await redeliver(eventId, { callback_url: true });
    assert.equal(noCallback.statusCode, 400);
    assert.equal((json(noCallback)['details'] as { issue: string }[])[0]?.issue, 'no_callback_url');
  });

  it('recovers after an outage: exhausted, fixed, re-enabled, redelivered', async () => {
    w.receiver.respond = (r) => (r.path === '/r-broken' ? { status: 500 } : { status: 200 });
    const ep = await w.createEndpoint({ url: w.receiver.url('/r-broken'), enabled_events: ['payment.reversed'] });
    const eventId = await w.emit('payment.reversed');
    await w.runUntilSettled();
    const [failed] = json(await w.t.call('GET', `/event/${eventId}/deliveries`))['data'] as {
      status: string;
      failure_reason: string;
    }[];
    assert.deepEqual([failed?.status, failed?.failure_reason], ['failed', 'exhausted']);
    w.receiver.respond = () => ({ status: 200 });
    await w.t.call('POST', `/webhook_endpoint/${ep.id}/update`, { body: { status: 'disabled' } });
    const refused = await redeliver(eventId, { endpoint_id: ep.id });
    assert.equal(refused.statusCode, 409);
    assert.equal(json(refused)['code'], 'webhook_endpoint_disabled');
    await w.t.call('POST', `/webhook_endpoint/${ep.id}/update`, { body: { status: 'enabled' } });
    assert.equal((await redeliver(eventId, { endpoint_id: ep.id })).statusCode, 202);
    await w.dispatcher.drain();
    const log = json(await w.t.call('GET', `/event/${eventId}/deliveries`))['data'] as { status: string; trigger: string }[];
    assert.deepEqual(
      log.map((d) => `${d.trigger}:${d.status}`),
      ['event:failed', 'redelivery:succeeded'],
    );
  });

  it('refuses unknown or foreign endpoints and contradictory bodies', async () => {
    const eventId = await w.emit('payment.expired');
    const foreign = await w.createEndpoint({ url: w.receiver.url('/r-b') }, w.t.b.sandboxKey);
    for (const body of [{ endpoint_id: foreign.id }, { endpoint_id: 'we_00000000000000000000000000' }, { endpoint_id: 'nope' }]) {
      const res = await redeliver(eventId, body);
      assert.equal(res.statusCode, 404, JSON.stringify(body));
      assert.equal(json(res)['message'], 'No such webhook endpoint.');
    }
    assert.equal((await redeliver(eventId, { endpoint_id: foreign.id, callback_url: true })).statusCode, 400);
    assert.equal((await redeliver(eventId, { everything: true })).statusCode, 400);
    assert.equal((await redeliver('evt_00000000000000000000000000')).statusCode, 404);
  });
});
