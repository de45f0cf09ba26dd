import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { timestampedSignatureHeader } from '../../src/lib/hmac-signature.ts';
import { sandboxCredentials } from '../../src/sandbox/sandbox-secrets.ts';
import { gate } from '../harness/scripted-connector.ts';
import { TEST_SECRET, appForSuite, json, quickStart } from '../harness/test-app.ts';

/**
 * POST /provider/{connector}/callback: forged, tampered, unsigned and replayed notifications are
 * refused and change nothing; duplicates and out-of-order deliveries change nothing twice.
 */
describe('inbound provider notifications', () => {
  // Generous per-try timeouts: one test holds a provider answer while it delivers a notification.
  const ctx = appForSuite({ connectorTimeoutMs: 20_000, connectorHttp: { retryBackoffMs: 0, perTryTimeoutMs: 15_000 } });

  const bank = () => ctx.t.provider('sandbox_bank');
  const createBank = async (amount = 150000) => {
    const res = await ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', amount }) });
    assert.equal(res.statusCode, 201, res.body);
    const p = json(res);
    const rows = await ctx.t.testStore.store.query<{ provider_reference: string }>(
      'SELECT provider_reference FROM payment_attempts WHERE payment_id = $1',
      [p['id']],
    );
    return { id: String(p['id']), reference: String(rows[0]?.provider_reference) };
  };
  const storedCount = async () =>
    (await ctx.t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM provider_notifications'))[0]?.n;
  const post = (connector: string, body: string, headers: Record<string, string>) =>
    ctx.t.app.inject({
      method: 'POST',
      url: `/provider/${connector}/callback`,
      payload: body,
      headers: { 'content-type': 'application/json', ...headers },
    });

  /** A notification exactly as the provider would send it, for a charge paid now. */
  const paidNotification = async (reference: string) => {
    bank().faults = { notifications: { mode: 'drop', remaining: 1 } };
    const reply = bank().simulate(reference, 'pay', undefined);
    assert.equal(reply.status, 200);
    const charge = reply.body as Record<string, unknown>;
    return JSON.stringify({
      id: `sbva_evt_test_${String(charge['version'])}`,
      event: 'virtual_account.status_changed',
      created: ctx.clock.now().toISOString(),
      data: charge,
    });
  };

  it('refuses a notification signed with another secret, a tampered one and an unsigned one; nothing is stored', async () => {
    const { id, reference } = await createBank();
    const body = await paidNotification(reference);
    const before = await storedCount();
    const genuine = sandboxCredentials(TEST_SECRET, 'sandbox_bank').webhookSecret;
    const foreign = sandboxCredentials('someone-else-someone-else-0000001', 'sandbox_bank').webhookSecret;

    const forged = await post('sandbox_bank', body, {
      'x-sandbox-signature': timestampedSignatureHeader(foreign, body, ctx.clock.now()),
    });
    assert.equal(forged.statusCode, 401);
    assert.equal(json(forged)['code'], 'invalid_signature');
    assert.deepEqual(json(forged)['details'], [{ issue: 'bad_signature' }]);

    const tampered = await post('sandbox_bank', body.replace('"paid_amount":"150000"', '"paid_amount":"950000"'), {
      'x-sandbox-signature': timestampedSignatureHeader(genuine, body, ctx.clock.now()),
    });
    assert.equal(tampered.statusCode, 401);

    const unsigned = await post('sandbox_bank', body, {});
    assert.equal(unsigned.statusCode, 401);
    assert.deepEqual(json(unsigned)['details'], [{ issue: 'missing_signature' }]);

    const wrongConnector = await post('sandbox_ewallet', body, {
      'x-ewallet-signature': timestampedSignatureHeader(genuine, body, ctx.clock.now()),
    });
    assert.equal(wrongConnector.statusCode, 401, 'each connector has its own secret');

    assert.equal(await storedCount(), before);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['status'], 'pending');
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2']);

    // The same bytes, signed with the right secret, are accepted: the refusals above were about the signature.
    const ok = await post('sandbox_bank', body, {
      'x-sandbox-signature': timestampedSignatureHeader(genuine, body, ctx.clock.now()),
    });
    assert.equal(ok.statusCode, 200, ok.body);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['status'], 'succeeded');
  });

  it('acknowledges a replay within the window as a duplicate and refuses one after it; neither changes anything', async () => {
    const { id, reference } = await createBank();
    bank().simulate(reference, 'pay', undefined);
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['version'], 3);
    const stored = await ctx.t.testStore.store.query<{ raw_body: string; headers: Record<string, string> }>(
      'SELECT raw_body, headers FROM provider_notifications WHERE payment_id = $1',
      [id],
    );
    const original = stored[0];
    assert.ok(original !== undefined);
    const signature = original.headers['x-sandbox-signature'] ?? '';
    assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/, 'the raw headers are stored with the body');

    const replay = await post('sandbox_bank', original.raw_body, { 'x-sandbox-signature': signature });
    assert.equal(replay.statusCode, 200);
    assert.equal(json(replay)['duplicate'], true);

    ctx.clock.advance(301_000);
    const late = await post('sandbox_bank', original.raw_body, { 'x-sandbox-signature': signature });
    assert.equal(late.statusCode, 401);
    assert.deepEqual(json(late)['details'], [{ issue: 'stale_timestamp' }]);

    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['version'], 3);
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3']);
  });

  it('answers 404 for an unknown connector and 400 for a signed but unreadable body', async () => {
    const body = '{"hello":"world"}';
    const unknown = await post('no_such_connector', body, {});
    assert.equal(unknown.statusCode, 404);
    const secret = sandboxCredentials(TEST_SECRET, 'sandbox_bank').webhookSecret;
    const unreadable = await post('sandbox_bank', body, {
      'x-sandbox-signature': timestampedSignatureHeader(secret, body, ctx.clock.now()),
    });
    assert.equal(unreadable.statusCode, 400);
    assert.equal(json(unreadable)['code'], 'invalid_request');
  });

  it('a duplicated delivery changes the payment once', async () => {
    const { id, reference } = await createBank();
    bank().faults = { notifications: { mode: 'duplicate', remaining: 1 } };
    bank().simulate(reference, 'pay', undefined);
    const delivered = await ctx.t.deliverNotifications();
    assert.equal(delivered.sent, 2, 'the provider sent the same event twice');
    const rows = await ctx.t.testStore.store.query('SELECT 1 FROM provider_notifications WHERE payment_id = $1', [id]);
    assert.equal(rows.length, 1, 'stored once');
    assert.equal((await ctx.t.payment(id))['version'], 3);
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3']);
  });

  it('out of order: "reversed" overtaking "paid" ends at reversed through succeeded; the late "paid" is stale', async () => {
    const { id, reference } = await createBank();
    bank().faults = { notifications: { mode: 'hold' } };
    bank().simulate(reference, 'pay', undefined);
    bank().simulate(reference, 'reverse', undefined);
    bank().faults = {};
    assert.equal(bank().release('reverse'), 2);
    await ctx.t.deliverNotifications();
    const p = await ctx.t.payment(id);
    assert.equal(p['status'], 'reversed');
    assert.equal(p['version'], 4);
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3', 'payment.reversed@4']);
    const outcomes = await ctx.t.testStore.store.query<{ status: string; outcome: string }>(
      'SELECT status, outcome FROM provider_notifications WHERE payment_id = $1 ORDER BY arrival',
      [id],
    );
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['processed', 'ignored'],
    );
    assert.match(outcomes[1]?.outcome ?? '', /^stale/);
  });

  it('out of order: the full payment overtaking a partial one leaves the full amount', async () => {
    const { id, reference } = await createBank();
    bank().faults = { notifications: { mode: 'hold' } };
    bank().simulate(reference, 'pay', 5_000_000n);
    bank().simulate(reference, 'pay', 10_000_000n);
    bank().faults = {};
    bank().release('reverse');
    await ctx.t.deliverNotifications();
    const p = await ctx.t.payment(id);
    assert.equal(p['status'], 'succeeded');
    assert.equal(p['amount_paid'], 150000);
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3']);
  });

  it('a notification for a payment still being created waits, then applies', async () => {
    // The provider holds its answer to the create, but has already made the charge and (magic
    // amount 88,888) had it paid: its notification arrives before our transaction 2.
    const answer = gate();
    bank().faults = { create: { mode: 'latency', until: answer.promise, remaining: 1 } };
    const creating = ctx.t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank', amount: 88888 }) });
    for (let i = 0; i < 100_000 && bank().pendingNotifications === 0; i += 1) await new Promise((r) => setImmediate(r));
    assert.equal(bank().pendingNotifications, 1);
    await ctx.t.deliverNotifications();
    const waiting = await ctx.t.testStore.store.query<{ status: string; outcome: string; payment_id: string | null }>(
      "SELECT status, outcome, payment_id FROM provider_notifications WHERE outcome LIKE 'deferred%'",
    );
    assert.equal(waiting.length, 1);
    assert.equal(waiting[0]?.status, 'received');
    answer.open();
    const created = await creating;
    assert.equal(created.statusCode, 201, created.body);
    const id = String(json(created)['id']);
    assert.equal((await ctx.t.payment(id))['status'], 'pending');
    ctx.clock.advance(2_000); // the deferred notification's next try
    await ctx.t.deliverNotifications();
    assert.equal((await ctx.t.payment(id))['status'], 'succeeded');
    assert.deepEqual(await ctx.t.eventTrail(id), ['payment.pending@2', 'payment.succeeded@3']);
  });
});
