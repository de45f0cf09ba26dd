import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { releaseAllDeliveryLeases } from '../../src/modules/webhooks/delivery-repo.ts';
import type { Store } from '../../src/db/store.ts';
import { claimReady, deliver, fanOut, recordDeliveries, sendDelivery } from '../../src/modules/webhooks/delivery-service.ts';
import { createDispatcher } from '../../src/jobs/webhook-dispatcher.ts';
import { json, quickStart } from '../harness/test-app.ts';
import type { ReceivedRequest } from '../harness/webhook-receiver.ts';
import {
  createWebhookTestbed,
  eventIdOf,
  signedBy,
  type TestbedOptions,
  type WebhookTestbed,
} from '../harness/webhook-testbed.ts';

const H = 3_600_000;
const DAY = 24 * H;

async function testbed(t: TestContext, options: TestbedOptions = {}): Promise<WebhookTestbed> {
  const w = await createWebhookTestbed(options);
  t.after(() => w.close());
  return w;
}

interface DeliveryJson {
  id: string;
  endpoint_id: string | null;
  target: string;
  status: string;
  failure_reason: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: {
    attempt_number: number;
    outcome: string;
    status_code: number | null;
    error: string | null;
    response_body: string | null;
  }[];
}

async function deliveriesOf(w: WebhookTestbed, eventId: string, key?: string): Promise<DeliveryJson[]> {
  const res = await w.t.call('GET', `/event/${eventId}/deliveries`, key === undefined ? {} : { key });
  assert.equal(res.statusCode, 200, res.body);
  return json(res)['data'] as DeliveryJson[];
}

const byPath = (w: WebhookTestbed, path: string) => w.receiver.requests.filter((r) => r.path === path);
const typeOf = (r: ReceivedRequest) => (JSON.parse(r.body) as { type: string }).type;

describe('fan-out', () => {
  it('sends each event to every enabled endpoint subscribed to its type, and to the payment callback_url, each signed with its own secret', async (t) => {
    const w = await testbed(t);
    const all = await w.createEndpoint({ url: w.receiver.url('/all') });
    const succeeded = await w.createEndpoint({ url: w.receiver.url('/succeeded'), enabled_events: ['payment.succeeded'] });
    const refunds = await w.createEndpoint({
      url: w.receiver.url('/refunds'),
      enabled_events: ['refund.succeeded', 'refund.failed'],
    });
    const off = await w.createEndpoint({ url: w.receiver.url('/off'), status: 'disabled' });
    const other = await w.createEndpoint({ url: w.receiver.url('/other-merchant') }, w.t.b.sandboxKey);
    await w.createEndpoint({ url: w.receiver.url('/production') }, w.t.a.productionKey);

    // A real payment with a callback_url: its payment.pending event, then a refund of it.
    const created = await w.t.call('POST', '/payment/create', {
      body: quickStart({ callback_url: w.receiver.url('/callback') }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const paymentId = String(json(created)['id']);
    const callbackSecret = String(json(await w.t.call('GET', '/callback_secret'))['secret']);
    await w.emit('payment.succeeded', { objectId: paymentId, version: 3 });
    await w.emit('refund.succeeded', {
      objectId: 'ref_TEST0000000000000000000001',
      object: { id: 'ref_1', object: 'refund', payment_id: paymentId },
    });
    await w.emit('payment.failed', { m: w.t.b });

    const reports = await w.dispatcher.drain();
    assert.ok(reports.every((r) => r.outcome === 'succeeded' && r.settled));

    assert.deepEqual(byPath(w, '/all').map(typeOf).sort(), ['payment.pending', 'payment.succeeded', 'refund.succeeded']);
    assert.deepEqual(byPath(w, '/succeeded').map(typeOf), ['payment.succeeded']);
    assert.deepEqual(byPath(w, '/refunds').map(typeOf), ['refund.succeeded']);
    assert.deepEqual(byPath(w, '/callback').map(typeOf).sort(), ['payment.pending', 'payment.succeeded', 'refund.succeeded']);
    assert.deepEqual(byPath(w, '/other-merchant').map(typeOf), ['payment.failed']);
    assert.equal(byPath(w, '/off').length, 0, 'disabled endpoints get nothing');
    assert.equal(byPath(w, '/production').length, 0, 'the other environment gets nothing');
    assert.equal(reports.length, 3 + 1 + 1 + 3 + 1);

    const secretOf: Record<string, string> = {
      '/all': all.secret,
      '/succeeded': succeeded.secret,
      '/refunds': refunds.secret,
      '/callback': callbackSecret,
      '/other-merchant': other.secret,
    };
    for (const r of w.receiver.requests) {
      const secret = secretOf[r.path];
      assert.ok(secret !== undefined, r.path);
      // The reference library verifies the request as received (the clock is near real time).
      const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { id: string };
      assert.equal(payload.id, eventIdOf(r));
      for (const [path, s] of Object.entries(secretOf))
        if (path !== r.path) assert.ok(!signedBy(s, r), `${r.path} not signed with ${path}'s secret`);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(String(r.headers['user-agent']), /^Tributary-Webhooks\//);
      assert.equal(r.headers['authorization'], undefined);
    }
    assert.ok(off.id.startsWith('we_'));
  });

  it('sends the body exactly as GET /event shows it, the object in the API key order, with its version', async (t) => {
    const w = await testbed(t);
    await w.createEndpoint({ url: w.receiver.url('/ep') });
    const created = json(await w.t.call('POST', '/payment/create', { body: quickStart({ description: 'Order 7' }) }));
    await w.dispatcher.drain();
    const [req] = byPath(w, '/ep');
    assert.ok(req !== undefined);
    const event = await w.t.call('GET', `/event/${eventIdOf(req)}`);
    assert.equal(event.body, req.body, 'same bytes');
    const body = JSON.parse(req.body) as { id: string; type: string; data: { object: Record<string, unknown> } };
    assert.deepEqual(Object.keys(body), ['id', 'type', 'created_at', 'api_version', 'data']);
    assert.deepEqual(Object.keys(body.data.object), Object.keys(created), 'payment keys in the order of the API');
    assert.deepEqual(body.data.object, created);
    assert.equal(body.data.object['version'], 2);
  });
});

describe('status codes and retries', () => {
  it('treats 2xx as success, retries 3xx (not followed), 4xx, 5xx, timeouts and resets, honours Retry-After, and disables on 410', async (t) => {
    const w = await testbed(t, { timeoutMs: 300 });
    const httpDate = new Date(w.clock.now().getTime() + 10 * 60_000).toUTCString(); // whole seconds
    const answers: Record<string, () => ReturnType<typeof w.receiver.respond>> = {
      '/ok': () => ({ status: 200 }),
      '/no-content': () => ({ status: 204 }),
      '/redirect': () => ({ status: 301, headers: { location: w.receiver.url('/redirect-target') } }),
      '/bad-request': () => ({ status: 400, body: '{"error":"nope"}' }),
      '/server-error': () => ({ status: 500 }),
      '/rate-limited': () => ({ status: 429, headers: { 'retry-after': '120' } }),
      '/unavailable': () => ({ status: 503, headers: { 'retry-after': httpDate } }),
      '/slow': () => 'hold',
      '/reset': () => 'destroy',
      '/gone': () => ({ status: 410 }),
    };
    w.receiver.respond = (r) => (answers[r.path] ?? (() => ({ status: 200 })))();
    const ids: Record<string, string> = {};
    for (const path of Object.keys(answers)) ids[path] = (await w.createEndpoint({ url: w.receiver.url(path) })).id;
    const watcher = await w.createEndpoint({ url: w.receiver.url('/watcher'), enabled_events: ['webhook_endpoint.disabled'] });

    const eventId = await w.emit('payment.succeeded');
    const sentAt = w.clock.now().getTime();
    await w.dispatcher.drain();
    w.receiver.release();

    const expectations: Record<
      string,
      { status: string; outcome: string; code: number | null; nextInMs?: number; reason?: string }
    > = {
      '/ok': { status: 'succeeded', outcome: 'succeeded', code: 200 },
      '/no-content': { status: 'succeeded', outcome: 'succeeded', code: 204 },
      '/redirect': { status: 'pending', outcome: 'redirect', code: 301, nextInMs: 5_000 },
      '/bad-request': { status: 'pending', outcome: 'http_error', code: 400, nextInMs: 5_000 },
      '/server-error': { status: 'pending', outcome: 'http_error', code: 500, nextInMs: 5_000 },
      '/rate-limited': { status: 'pending', outcome: 'http_error', code: 429, nextInMs: 120_000 },
      '/unavailable': { status: 'pending', outcome: 'http_error', code: 503, nextInMs: Date.parse(httpDate) - sentAt },
      '/slow': { status: 'pending', outcome: 'timeout', code: null, nextInMs: 5_000 },
      '/reset': { status: 'pending', outcome: 'network_error', code: null, nextInMs: 5_000 },
      '/gone': { status: 'failed', outcome: 'http_error', code: 410, reason: 'gone' },
    };
    const deliveries = await deliveriesOf(w, eventId);
    for (const [path, e] of Object.entries(expectations)) {
      const d = deliveries.find((x) => x.endpoint_id === ids[path]);
      assert.ok(d !== undefined, path);
      assert.equal(d.status, e.status, path);
      assert.equal(d.attempt_count, 1, path);
      assert.equal(d.attempts[0]?.outcome, e.outcome, path);
      assert.equal(d.attempts[0]?.status_code, e.code, path);
      if (e.nextInMs !== undefined) assert.equal(new Date(String(d.next_attempt_at)).getTime() - sentAt, e.nextInMs, path);
      if (e.reason !== undefined) assert.equal(d.failure_reason, e.reason, path);
    }
    const bad = deliveries.find((x) => x.endpoint_id === ids['/bad-request']);
    assert.equal(bad?.attempts[0]?.response_body, '{"error":"nope"}');
    assert.match(String(deliveries.find((x) => x.endpoint_id === ids['/redirect'])?.attempts[0]?.error), /not followed/);
    assert.equal(byPath(w, '/redirect-target').length, 0, 'the Location was never requested');

    // 410: the endpoint is disabled and the merchant told by an event.
    const gone = json(await w.t.call('GET', `/webhook_endpoint/${ids['/gone']}`));
    assert.equal(gone['status'], 'disabled');
    assert.equal(gone['disabled_reason'], 'gone');
    const told = byPath(w, '/watcher');
    assert.equal(told.length, 1);
    const disabledEvent = JSON.parse(told[0]?.body ?? '{}') as { type: string; data: { object: Record<string, unknown> } };
    assert.equal(disabledEvent.type, 'webhook_endpoint.disabled');
    assert.equal(disabledEvent.data.object['id'], ids['/gone']);
    assert.equal(disabledEvent.data.object['disabled_reason'], 'gone');
    assert.ok(signedBy(watcher.secret, told[0] as ReceivedRequest));

    // The retries: once the 5 s step passes, the retryable failures are attempted again, but
    // Retry-After holds the 429 and 503 ones back.
    w.clock.advance(5_000);
    await w.dispatcher.drain();
    w.receiver.release();
    const afterFive = await deliveriesOf(w, eventId);
    for (const path of ['/redirect', '/bad-request', '/server-error', '/slow', '/reset']) {
      assert.equal(afterFive.find((x) => x.endpoint_id === ids[path])?.attempt_count, 2, path);
    }
    for (const path of ['/rate-limited', '/unavailable']) {
      assert.equal(afterFive.find((x) => x.endpoint_id === ids[path])?.attempt_count, 1, path);
    }
  });

  it('cancels what is queued for an endpoint when a 410 disables it, and sends it nothing more', async (t) => {
    const w = await testbed(t);
    w.receiver.respond = () => ({ status: 500 });
    const ep = await w.createEndpoint({ url: w.receiver.url('/leaving') });
    const first = await w.emit('payment.succeeded');
    await w.dispatcher.drain();
    assert.equal((await deliveriesOf(w, first))[0]?.status, 'pending', 'a retry is queued');
    w.receiver.respond = () => ({ status: 410 });
    const second = await w.emit('payment.failed');
    await w.dispatcher.drain();
    const [d2] = await deliveriesOf(w, second);
    assert.equal(d2?.status, 'failed');
    assert.equal(d2?.failure_reason, 'gone');
    const [d1] = await deliveriesOf(w, first);
    assert.equal(d1?.status, 'canceled');
    assert.equal(d1?.failure_reason, 'endpoint_disabled');
    await w.emit('payment.expired');
    w.clock.advance(DAY);
    await w.dispatcher.drain();
    assert.equal(byPath(w, '/leaving').length, 2, 'nothing after the 410');
    assert.equal(json(await w.t.call('GET', `/webhook_endpoint/${ep.id}`))['disabled_reason'], 'gone');
  });

  it('keeps retrying a receiver that is down for three virtual days, which then gets everything', async (t) => {
    const w = await testbed(t);
    const upAt = w.clock.now().getTime() + 3 * DAY;
    w.receiver.respond = () => (w.clock.now().getTime() < upAt ? { status: 503 } : { status: 200 });
    await w.createEndpoint({ url: w.receiver.url('/down') });
    const events = [await w.emit('payment.succeeded'), await w.emit('payment.failed'), await w.emit('payment.expired')];
    await w.runUntilSettled();
    for (const id of events) {
      const [d] = await deliveriesOf(w, id);
      assert.equal(d?.status, 'succeeded');
      assert.equal(d?.attempt_count, 10, 'the tenth attempt, 75.6 hours in, succeeds');
      assert.deepEqual(
        d?.attempts.map((a) => a.status_code),
        [503, 503, 503, 503, 503, 503, 503, 503, 503, 200],
      );
    }
    const delivered = byPath(w, '/down').filter((r) => r.answered && w.receiver.requests.indexOf(r) >= 0);
    assert.deepEqual(new Set(delivered.map(eventIdOf)), new Set(events));
    assert.ok(w.clock.now().getTime() >= upAt);
  });

  it('ends a delivery that never succeeds as failed (exhausted) after 10 attempts over ~3 days, visible in the log', async (t) => {
    const w = await testbed(t);
    w.receiver.respond = () => ({ status: 500, body: 'still broken' });
    const ep = await w.createEndpoint({ url: w.receiver.url('/never') });
    const start = w.clock.now().getTime();
    const id = await w.emit('payment.succeeded');
    await w.runUntilSettled();
    const [d] = await deliveriesOf(w, id);
    assert.equal(d?.status, 'failed');
    assert.equal(d?.failure_reason, 'exhausted');
    assert.equal(d?.attempt_count, 10);
    assert.equal(d?.attempts.length, 10);
    assert.equal(d?.next_attempt_at, null);
    assert.equal(d?.attempts.at(-1)?.response_body, 'still broken');
    assert.equal(w.clock.now().getTime() - start, 75 * H + 35 * 60_000 + 5_000, 'the last attempt at 75 h 35 min 5 s');
    assert.equal(byPath(w, '/never').length, 10);
    // Three days of failures do not disable the endpoint yet (that takes five).
    assert.equal(json(await w.t.call('GET', `/webhook_endpoint/${ep.id}`))['status'], 'enabled');
  });

  it('disables an endpoint that failed continuously for 5 days, and tells the merchant', async (t) => {
    const w = await testbed(t);
    w.receiver.respond = (r) => (r.path === '/dead' ? { status: 500 } : { status: 200 });
    const dead = await w.createEndpoint({ url: w.receiver.url('/dead') });
    await w.createEndpoint({ url: w.receiver.url('/ops'), enabled_events: ['webhook_endpoint.disabled'] });
    await w.emit('payment.succeeded');
    await w.dispatcher.drain();
    const failing = json(await w.t.call('GET', `/webhook_endpoint/${dead.id}`));
    assert.equal(failing['failing_since'], w.clock.now().toISOString());

    // A success clears the failing streak.
    w.receiver.respond = () => ({ status: 200 });
    w.clock.advance(5_000);
    await w.dispatcher.drain();
    assert.equal(json(await w.t.call('GET', `/webhook_endpoint/${dead.id}`))['failing_since'], null);

    w.receiver.respond = (r) => (r.path === '/dead' ? { status: 500 } : { status: 200 });
    for (let day = 0; day <= 5; day += 1) {
      await w.emit('payment.succeeded');
      await w.dispatcher.drain();
      const e = json(await w.t.call('GET', `/webhook_endpoint/${dead.id}`));
      assert.equal(e['status'], day < 5 ? 'enabled' : 'disabled', `day ${day}`);
      w.clock.advance(DAY);
    }
    const e = json(await w.t.call('GET', `/webhook_endpoint/${dead.id}`));
    assert.equal(e['disabled_reason'], 'failing');
    const told = byPath(w, '/ops').map((r) => JSON.parse(r.body) as { type: string; data: { object: { id: string } } });
    assert.equal(told.length, 1);
    assert.equal(told[0]?.type, 'webhook_endpoint.disabled');
    assert.equal(told[0]?.data.object.id, dead.id);
    // Retries that were in flight when it was disabled are canceled when they come due; nothing
    // more reaches it.
    const reached = byPath(w, '/dead').length;
    w.clock.advance(2 * DAY);
    await w.dispatcher.drain();
    assert.equal(byPath(w, '/dead').length, reached);
    const left = await w.t.testStore.store.query<{ status: string; n: bigint }>(
      'SELECT status, count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status ORDER BY status',
      [dead.id],
    );
    assert.deepEqual(
      left.map((r) => r.status),
      ['canceled', 'succeeded'],
    );
  });
});

describe('SSRF at delivery', () => {
  it('checks the address the name resolves to at every attempt: refused answers are logged as blocked, never connected', async (t) => {
    // The name passes the save-time rules; what it resolves to at delivery decides.
    let answer = '169.254.169.254';
    const asked: string[] = [];
    const w = await testbed(t, {
      resolver: async (host) => {
        asked.push(host);
        return [{ address: answer, family: 4 }];
      },
    });
    const port = new URL(w.receiver.origin).port;
    await w.createEndpoint({ url: `http://hooks.shop.example.com:${port}/rebind` });
    const id = await w.emit('payment.succeeded');
    await w.dispatcher.drain();
    const [blocked] = await deliveriesOf(w, id);
    assert.equal(blocked?.status, 'pending');
    assert.equal(blocked?.attempts[0]?.outcome, 'blocked');
    assert.match(String(blocked?.attempts[0]?.error), /link-local/);
    assert.equal(w.receiver.requests.length, 0);
    assert.deepEqual(asked, ['hooks.shop.example.com']);

    for (const [address, expected] of [
      ['10.0.0.7', 'blocked'],
      ['::ffff:127.0.0.2', 'blocked'],
      ['127.0.0.1', 'succeeded'], // allow-listed (WEBHOOK_ALLOWLIST=127.0.0.1): the loopback receiver
    ] as const) {
      answer = address;
      w.clock.advance(30 * 60_000);
      await w.dispatcher.drain();
      const [d] = await deliveriesOf(w, id);
      assert.equal(d?.attempts.at(-1)?.outcome, expected, address);
    }
    assert.equal(w.receiver.requests.length, 1, 'only the allowed address was ever connected to');
    assert.equal(w.receiver.requests[0]?.headers.host, `hooks.shop.example.com:${port}`);
  });
});

describe('secret rotation', () => {
  it('signs with the old and the new secret during the overlap, then with the new one only', async (t) => {
    const w = await testbed(t);
    const ep = await w.createEndpoint({ url: w.receiver.url('/rot') });
    const rotated = json(
      await w.t.call('POST', `/webhook_endpoint/${ep.id}/rotate_secret`, { body: { expire_previous_in_seconds: 3600 } }),
    );
    const fresh = String(rotated['secret']);
    await w.emit('payment.succeeded');
    await w.dispatcher.drain();
    const [during] = byPath(w, '/rot');
    assert.ok(during !== undefined);
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of [fresh, ep.secret]) {
      assert.doesNotThrow(() => new Webhook(secret).verify(during.body, during.headers as Record<string, string>));
    }

    w.clock.advance(3600_000 + 1);
    await w.emit('payment.failed');
    await w.dispatcher.drain();
    const afterwards = byPath(w, '/rot')[1] as ReceivedRequest;
    assert.equal(String(afterwards.headers['webhook-signature']).split(' ').length, 1);
    assert.ok(signedBy(fresh, afterwards));
    assert.ok(!signedBy(ep.secret, afterwards));
  });

  it('rotates the callback secret the same way', async (t) => {
    const w = await testbed(t);
    const old = String(json(await w.t.call('GET', '/callback_secret'))['secret']);
    const fresh = String(
      json(await w.t.call('POST', '/callback_secret/rotate', { body: { expire_previous_in_seconds: 60 } }))['secret'],
    );
    await w.t.call('POST', '/payment/create', { body: quickStart({ callback_url: w.receiver.url('/cb') }) });
    await w.dispatcher.drain();
    const [req] = byPath(w, '/cb');
    assert.ok(req !== undefined && signedBy(fresh, req) && signedBy(old, req));
    w.clock.advance(61_000);
    await w.t.call('POST', '/payment/create', { body: quickStart({ callback_url: w.receiver.url('/cb') }) });
    await w.dispatcher.drain();
    const later = byPath(w, '/cb')[1] as ReceivedRequest;
    assert.ok(signedBy(fresh, later) && !signedBy(old, later));
  });
});

describe('concurrency and leases', () => {
  it('bounds concurrency per endpoint: a slow endpoint holds its own slots only', async (t) => {
    const w = await testbed(t, { concurrency: 8, perTargetConcurrency: 2 });
    w.receiver.respond = (r) => (r.path === '/slow' ? 'hold' : { status: 200 });
    const slow = await w.createEndpoint({ url: w.receiver.url('/slow') });
    await w.createEndpoint({ url: w.receiver.url('/fast') });
    for (let i = 0; i < 6; i += 1) await w.emit('payment.succeeded');

    let fastDone = 0;
    for (let round = 0; round < 20 && fastDone < 6; round += 1) {
      const { started } = await w.dispatcher.runOnce();
      assert.ok(started.every((s) => s.targetKey !== slow.id) || round === 0, 'no new slow sends while its 2 slots are busy');
      const fast = started.filter((s) => s.targetKey !== slow.id);
      fastDone += (await Promise.all(fast.map((s) => s.done))).filter((r) => r?.outcome === 'succeeded').length;
    }
    assert.equal(fastDone, 6, 'every fast delivery went through while the slow endpoint was stuck');
    assert.equal(w.receiver.held.length, 2);
    assert.equal(w.receiver.maxConcurrent('/slow'), 2);
    assert.ok(w.receiver.maxConcurrent('/fast') <= 2);

    // Released, the slow endpoint drains too.
    w.receiver.respond = () => ({ status: 200 });
    w.receiver.release();
    await w.dispatcher.drain();
    assert.equal(
      new Set(
        byPath(w, '/slow')
          .filter((r) => r.answered)
          .map(eventIdOf),
      ).size,
      6,
    );
  });
});

/** The store, counting the transactions and the statements run outside them. */
function countingStore(store: Store): { store: Store; counts: { transactions: number; queries: number } } {
  const counts = { transactions: 0, queries: 0 };
  return {
    counts,
    store: {
      kind: store.kind,
      query: (text, params) => {
        counts.queries += 1;
        return store.query(text, params);
      },
      exec: (script) => store.exec(script),
      transaction: (fn) => {
        counts.transactions += 1;
        return store.transaction(fn);
      },
      withConnection: (fn) => store.withConnection(fn),
      ping: (ms) => store.ping(ms),
      close: () => Promise.resolve(),
    },
  };
}

describe('the claim', () => {
  it('reads each event body and endpoint in the claim statement itself: no other reads, deleted and disabled endpoints cancel', async (t) => {
    const w = await testbed(t);
    const live = await w.createEndpoint({ url: w.receiver.url('/live') });
    const deleted = await w.createEndpoint({ url: w.receiver.url('/deleted') });
    const disabled = await w.createEndpoint({ url: w.receiver.url('/disabled') });
    const events = [await w.emit('payment.succeeded'), await w.emit('payment.failed')];
    const store = w.t.testStore.store;
    assert.equal(await fanOut(w.workerDeps(), 10), 2);
    // After the fan-out, as if a delete and a disable raced deliveries already queued.
    await store.query('UPDATE webhook_endpoints SET deleted_at = now() WHERE id = $1', [deleted.id]);
    await store.query("UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'manual' WHERE id = $1", [
      disabled.id,
    ]);

    const { store: counting, counts } = countingStore(store);
    const ready = await claimReady(
      { ...w.workerDeps(), store: counting },
      { limit: 10, perTargetLimit: 4, inFlight: new Map(), scanLimit: 100 },
    );
    assert.equal(ready.length, 6, 'two events to three endpoints');
    assert.deepEqual([counts.transactions, counts.queries], [1, 0], 'one claim transaction and nothing read after it');

    const kindOf = (endpointId: string) =>
      ready.filter((r) => r.claim.endpointId === endpointId).map((r) => (r.kind === 'send' ? 'send' : r.reason));
    assert.deepEqual(kindOf(live.id), ['send', 'send']);
    assert.deepEqual(kindOf(deleted.id), ['endpoint_deleted', 'endpoint_deleted']);
    assert.deepEqual(kindOf(disabled.id), ['endpoint_disabled', 'endpoint_disabled']);
    for (const r of ready) {
      if (r.kind !== 'send') continue;
      const body = JSON.parse(r.body) as { id: string; type: string };
      assert.equal(body.id, r.claim.eventId, 'each delivery carries its own event, once per event in the claim');
      assert.equal(r.url, w.receiver.url('/live'));
    }
    assert.deepEqual(new Set(ready.map((r) => r.claim.eventId)), new Set(events));
  });
});

describe('recording by group commit', () => {
  it('records a batch of finished sends in one transaction, each with its own outcome, attempt and lease fence', async (t) => {
    const w = await testbed(t);
    w.receiver.respond = (r) => ({ status: r.path === '/ok' ? 200 : r.path === '/err' ? 500 : 410 });
    const ok = await w.createEndpoint({ url: w.receiver.url('/ok') });
    const err = await w.createEndpoint({ url: w.receiver.url('/err') });
    const gone = await w.createEndpoint({ url: w.receiver.url('/gone') });
    const events = [await w.emit('payment.succeeded'), await w.emit('payment.failed')];

    const store = w.t.testStore.store;
    const { store: counting, counts } = countingStore(store);
    const deps = { ...w.workerDeps(), store: counting };
    assert.equal(await fanOut(deps, 10), 2);
    const claimed = await claimReady(deps, { limit: 10, perTargetLimit: 4, inFlight: new Map(), scanLimit: 100 });
    assert.equal(claimed.length, 6);
    // Another worker took one of the /ok deliveries over (our lease on it is lost).
    const lost = claimed.find((c) => c.claim.endpointId === ok.id);
    assert.ok(lost !== undefined);
    await store.query("UPDATE webhook_deliveries SET lease_token = 'someone-else' WHERE id = $1", [lost.claim.id]);

    const finished = await Promise.all(claimed.map((c) => sendDelivery(deps, c)));
    counts.transactions = 0;
    const reports = await recordDeliveries(deps, finished);
    assert.equal(counts.transactions, 1, 'six deliveries, one transaction');

    const byEndpoint = (id: string) => reports.filter((r, i) => claimed[i]?.claim.endpointId === id);
    assert.deepEqual(
      byEndpoint(ok.id)
        .map((r) => [r.status, r.settled])
        .sort(),
      [
        ['succeeded', false],
        ['succeeded', true],
      ],
    );
    assert.ok(byEndpoint(err.id).every((r) => r.status === 'pending' && r.settled));
    assert.ok(byEndpoint(gone.id).every((r) => r.status === 'failed' && r.settled));
    for (const eventId of events) {
      const rows = await deliveriesOf(w, eventId);
      assert.equal(
        rows.reduce((n, d) => n + d.attempts.length, 0),
        3,
        'every attempt is logged, fenced or not',
      );
      const errRow = rows.find((d) => d.endpoint_id === err.id);
      assert.equal(errRow?.attempts[0]?.status_code, 500);
      assert.ok(errRow?.next_attempt_at !== null, 'a failed attempt schedules its retry');
      assert.equal(rows.find((d) => d.endpoint_id === gone.id)?.failure_reason, 'gone');
    }
    const endpoint = json(await w.t.call('GET', `/webhook_endpoint/${gone.id}`));
    assert.equal(endpoint['status'], 'disabled', 'a 410 disables its endpoint, in the same transaction');
  });
});

describe('several dispatchers', () => {
  it('share the work: every event delivered exactly once when nobody dies', async (t) => {
    const w = await testbed(t);
    await w.createEndpoint({ url: w.receiver.url('/shared-1') });
    await w.createEndpoint({ url: w.receiver.url('/shared-2') });
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 1) ids.push(await w.emit('payment.succeeded'));
    const second = createDispatcher(w.workerDeps());
    const [a, b] = await Promise.all([w.dispatcher.drain(), second.drain()]);
    assert.equal(a.length + b.length, 60);
    for (const path of ['/shared-1', '/shared-2']) {
      const got = byPath(w, path).map(eventIdOf);
      assert.equal(got.length, 30, path);
      assert.deepEqual(new Set(got), new Set(ids), path);
    }
  });
});

describe('a stale lease', () => {
  let w: WebhookTestbed;
  before(async () => {
    w = await createWebhookTestbed({ leaseMs: 30_000, timeoutMs: 1_000 });
  });
  after(() => w.close());

  it("is recovered when it expires, and the dead worker's late write is fenced off", async () => {
    const deadWorker = w.workerDeps();
    await w.createEndpoint({ url: w.receiver.url('/lease'), enabled_events: ['payment.succeeded'] });
    const eventId = await w.emit('payment.succeeded');
    assert.equal(await fanOut(deadWorker, 10), 1);

    // A worker claims the delivery, then "dies" (never sends, never records).
    const claimed = await claimReady(deadWorker, { limit: 10, perTargetLimit: 4, inFlight: new Map(), scanLimit: 100 });
    assert.equal(claimed.length, 1);
    assert.equal((await w.dispatcher.drain()).length, 0, 'nobody else may take it while the lease runs');
    assert.equal(byPath(w, '/lease').length, 0);

    w.clock.advance(30_000);
    const reports = await w.dispatcher.drain();
    assert.equal(reports.length, 1);
    assert.equal(byPath(w, '/lease').length, 1, 'the live dispatcher delivered it');

    // The "dead" worker wakes up and sends anyway: the receiver sees a duplicate (at-least-once),
    // but its record is fenced: the delivery stays as the owner recorded it.
    const late = await deliver(deadWorker, claimed[0] as (typeof claimed)[number]);
    assert.equal(late.settled, false);
    const [d] = await deliveriesOf(w, eventId);
    assert.equal(d?.status, 'succeeded');
    assert.equal(d?.attempt_count, 1);
    assert.equal(d?.attempts.length, 2, 'both attempts are in the log');
    assert.equal(byPath(w, '/lease').length, 2);
  });

  it('is released at once when the embedded server restarts (its only possible holder is dead)', async () => {
    const deadWorker = w.workerDeps();
    await w.createEndpoint({ url: w.receiver.url('/restart'), enabled_events: ['payment.canceled'] });
    const eventId = await w.emit('payment.canceled');
    await fanOut(deadWorker, 10);
    assert.equal((await claimReady(deadWorker, { limit: 10, perTargetLimit: 4, inFlight: new Map(), scanLimit: 100 })).length, 1);
    assert.equal((await w.dispatcher.drain()).length, 0, 'leased');
    assert.equal(await releaseAllDeliveryLeases(w.t.testStore.store, w.clock.now()), 1);
    assert.equal((await w.dispatcher.drain()).length, 1, 'due again without waiting for the lease');
    assert.equal((await deliveriesOf(w, eventId))[0]?.status, 'succeeded');
  });
});
