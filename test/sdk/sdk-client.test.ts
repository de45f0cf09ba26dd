import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ERROR_CATALOGUE } from '../../src/lib/error-catalogue.ts';
import {
  AuthenticationError,
  ConflictError,
  ERROR_STATUS,
  IdempotencyError,
  InvalidRequestError,
  NotFoundError,
  OPENAPI_SHA256,
  OPERATIONS,
  type Payment,
  Tributary,
  TributaryError,
  type WithResponse,
} from '../../sdk/src/index.ts';
import { TEST_OPERATOR, appForSuite, ref } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The SDK against the real server on loopback (app.listen on 127.0.0.1:0), on the embedded store
 * or PostgreSQL (TEST_STORE=postgres): every resource it exposes, auto-pagination, typed errors,
 * and the generated types checked against the document this server serves.
 */

const DAY_MS = 24 * 3_600_000;
const quickStart = () => ({ amount: 150000.0, currency: 'IDR', reference_no: ref('sdk'), email: 'payer@example.com' });

describe(`SDK client against the server (${TEST_STORE})`, () => {
  const ctx = appForSuite({ settlementDelayMs: null, webhookAllowlist: ['127.0.0.1'] });

  /** A merchant of its own, so lists hold only this test's objects. */
  async function freshClient(options: ConstructorParameters<typeof Tributary>[1] = {}) {
    const m = await ctx.t.merchants.createMerchant('SDK merchant', TEST_OPERATOR);
    return new Tributary(m.sandbox.secret, { baseUrl: ctx.t.baseUrl, ...options });
  }

  it('the generated types come from the document this server serves', async () => {
    const served = await fetch(`${ctx.t.baseUrl}/openapi.json`);
    assert.equal(served.status, 200);
    const sha = createHash('sha256')
      .update(await served.text())
      .digest('hex');
    assert.equal(sha, OPENAPI_SHA256, 'sdk/src/generated/api.ts is stale: run npm run gen:docs');
    assert.deepEqual(ERROR_STATUS, Object.fromEntries(Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status])));
  });

  it('every operation of the document is called by a client method', () => {
    const source = readFileSync('sdk/src/client.ts', 'utf8');
    const called = new Set([...source.matchAll(/request\(\s*'(\w+)'|paged\(\s*this\.http,\s*'(\w+)'/g)].map((m) => m[1] ?? m[2]));
    assert.deepEqual([...called].sort(), Object.keys(OPERATIONS).sort());
  });

  it('checkouts: create, retrieve, list, select a channel with the client_secret, expire', async () => {
    const client = await freshClient();
    const body = { amount: 150000.0, currency: 'IDR', reference_no: ref('sdk-cs'), email: 'payer@example.com' };
    const checkout = await client.checkouts.create(body);
    assert.match(checkout.id, /^cs_/);
    assert.equal(checkout.object, 'checkout');
    assert.equal(checkout.status, 'open');
    assert.equal(checkout.amount, 150000);
    assert.equal(checkout.payment, null);
    assert.equal(checkout.lastResponse.statusCode, 201);
    assert.ok(checkout.lastResponse.idempotencyKey?.startsWith('tributary-node-'), 'create is keyed');
    const secret = checkout.client_secret;
    assert.ok(typeof secret === 'string' && secret !== '', 'the create answer carries the client_secret');

    const got = await client.checkouts.retrieve(checkout.id);
    assert.equal(got.id, checkout.id);
    assert.equal('client_secret' in got, false, 'the secret is shown in the create answer only');

    ctx.clock.advance(1_000);
    const second = await client.checkouts.create({ ...body, reference_no: ref('sdk-cs') });
    const page = await client.checkouts.list({ limit: 1 });
    assert.equal(page.object, 'list');
    assert.deepEqual(
      page.data.map((c) => c.id),
      [second.id],
    );
    assert.equal(page.has_more, true);
    const all: string[] = [];
    for await (const c of client.checkouts.list({ limit: 1, status: 'open' })) all.push(c.id);
    assert.deepEqual(all, [second.id, checkout.id], 'every open checkout once, newest first, one per page');

    const wrong = await client.checkouts
      .select(checkout.id, { client_secret: 'cs_secret_wrong', channel: 'bank' })
      .catch((e: unknown) => e);
    assert.ok(wrong instanceof AuthenticationError, String(wrong));
    assert.equal(wrong.code, 'client_secret_invalid');

    const selected = await client.checkouts.select(checkout.id, { client_secret: secret, channel: 'bank' });
    assert.equal(selected.id, checkout.id);
    assert.equal(selected.status, 'open');
    assert.equal(typeof selected.payment, 'object');
    assert.match(selected.payment.id, /^pay_/);
    assert.equal(selected.payment.channel, 'bank');
    assert.equal(selected.payment.amount, 150000);
    assert.ok(selected.payment.instructions !== null && typeof selected.payment.instructions === 'object', 'the instructions');
    assert.deepEqual(selected.payments, [selected.payment.id]);
    assert.ok(selected.lastResponse.idempotencyKey?.startsWith('tributary-node-'), 'select is retried as keyed');
    assert.equal((await client.checkouts.retrieve(checkout.id)).payment, selected.payment.id, 'a read names the payment');

    const expired = await client.checkouts.expire(checkout.id);
    assert.equal(expired.status, 'expired');
    assert.ok(expired.closed_at !== null);
    assert.equal((await client.payments.retrieve(selected.payment.id)).status, 'canceled', 'its pending payment is canceled');
    const closed = await client.checkouts
      .select(checkout.id, { client_secret: secret, channel: 'bank' })
      .catch((e: unknown) => e);
    assert.ok(closed instanceof ConflictError, String(closed));
    assert.equal(closed.code, 'checkout_not_open');
  });

  it('payment links: create (keyed), retrieve, list by the cursor, a visit, deactivate', async () => {
    const client = await freshClient();
    const fixed = await client.paymentLinks.create({
      amount: 150000.0,
      currency: 'IDR',
      description: 'Yoga class',
      max_uses: 2,
    });
    assert.match(fixed.id, /^plink_/);
    assert.equal(fixed.object, 'payment_link');
    assert.equal(fixed.status, 'active');
    assert.equal(fixed.amount, 150000);
    assert.equal(fixed.amount_min, null);
    assert.equal(fixed.remaining_uses, 2);
    assert.match(fixed.url, new RegExp(`/pay/${fixed.id}$`));
    assert.equal(fixed.lastResponse.statusCode, 201);
    assert.ok(fixed.lastResponse.idempotencyKey?.startsWith('tributary-node-'), 'create is keyed');
    // The same key again: the stored answer, not a second link.
    const key = `plink-${ref('sdk')}`;
    const first = await client.paymentLinks.create(
      { amount_min: 50000, amount_max: 2000000, currency: 'IDR' },
      { idempotencyKey: key },
    );
    const again = await client.paymentLinks.create(
      { amount_min: 50000, amount_max: 2000000, currency: 'IDR' },
      { idempotencyKey: key },
    );
    assert.equal(again.id, first.id);
    assert.equal(again.lastResponse.replayed, true);
    assert.deepEqual([first.amount, first.amount_min, first.amount_max], [null, 50000, 2000000]);

    const visit = await client.paymentLinks.startCheckout(fixed.id);
    assert.match(visit.id, /^cs_/);
    assert.equal(visit.amount, 150000);
    assert.equal(visit.lastResponse.statusCode, 201);
    assert.equal(visit.lastResponse.idempotencyKey, undefined, 'a visit is not keyed: each call is a new visit');
    const outside = await client.paymentLinks.startCheckout(first.id, { amount: 100 }).catch((e: unknown) => e);
    assert.ok(outside instanceof InvalidRequestError, String(outside));
    assert.equal(outside.param, 'amount');

    const got = await client.paymentLinks.retrieve(fixed.id);
    assert.deepEqual(got.checkouts, { open: 1, completed: 0, expired: 0 });
    assert.equal(got.remaining_uses, 1, 'the open checkout holds a use');
    assert.deepEqual(got.totals, { collected: 0, completed_count: 0 });

    const page = await client.paymentLinks.list({ limit: 1 });
    assert.equal(page.data.length, 1);
    assert.equal(page.has_more, true);
    const all: string[] = [];
    for await (const l of client.paymentLinks.list({ limit: 1 })) all.push(l.id);
    assert.deepEqual([...all].sort(), [fixed.id, first.id].sort(), 'every link once, one per page');

    const deactivated = await client.paymentLinks.deactivate(fixed.id);
    assert.equal(deactivated.status, 'inactive');
    assert.ok(deactivated.deactivated_at !== null);
    const refused = await client.paymentLinks.startCheckout(fixed.id).catch((e: unknown) => e);
    assert.ok(refused instanceof ConflictError, String(refused));
    assert.equal(refused.code, 'payment_link_inactive');
    const missing = await client.paymentLinks.retrieve('plink_nope').catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError, String(missing));
  });

  it('creates, retrieves and lists payments; for await pages through more than one page by the cursor', async () => {
    const listCalls: string[] = [];
    const client = await freshClient({
      fetch: (input, init) => {
        const url = new URL(String(input));
        if (url.pathname === '/payment') listCalls.push(url.search);
        return fetch(input, init);
      },
    });
    const created: WithResponse<Payment>[] = [];
    for (let i = 0; i < 7; i += 1) {
      created.push(await client.payments.create(quickStart()));
      ctx.clock.advance(1_000); // distinct created_at: the list order is then the reverse of creation
    }
    const first = created[0]!;
    assert.match(first.id, /^pay_/);
    assert.equal(first.status, 'pending');
    assert.equal(first.amount, 150000);
    assert.equal(first.lastResponse.statusCode, 201);
    assert.match(first.lastResponse.requestId ?? '', /^req_/);
    assert.equal(Object.keys(first).includes('lastResponse'), false, 'lastResponse is not part of the object');

    const got = await client.payments.retrieve(first.id);
    assert.deepEqual({ ...got }, { ...first });

    const page = await client.payments.list({ limit: 3 });
    assert.equal(page.object, 'list');
    assert.equal(page.data.length, 3);
    assert.equal(page.has_more, true);
    assert.equal(page.next_cursor, page.data[2]?.id);

    listCalls.length = 0;
    const all: string[] = [];
    for await (const p of client.payments.list({ limit: 3 })) all.push(p.id);
    assert.deepEqual(all, created.map((p) => p.id).reverse(), 'every payment once, newest first');
    assert.equal(listCalls.length, 3, `3 pages of 3, 3 and 1: ${listCalls.join(' ')}`);
    assert.match(listCalls[1]!, new RegExp(`starting_after=${page.data[2]!.id}`));

    const some = await client.payments.list({ limit: 2 }).toArray({ limit: 5 });
    assert.equal(some.length, 5);
    const filtered = await client.payments.list({ reference_no: first.reference_no });
    assert.deepEqual(
      filtered.data.map((p) => p.id),
      [first.id],
    );
  });

  it('cancels a pending payment', async () => {
    const client = await freshClient();
    const p = await client.payments.create(quickStart());
    const canceled = await client.payments.cancel(p.id, { cancellation_reason: 'abandoned' });
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.cancellation_reason, 'abandoned');
    assert.ok(canceled.lastResponse.idempotencyKey?.startsWith('tributary-node-'), 'cancel is keyed too');
  });

  it('refunds a paid payment and retrieves the refund', async () => {
    const client = new Tributary(ctx.t.a.sandboxKey, { baseUrl: ctx.t.baseUrl });
    const paid = await client.payments.create({ ...quickStart(), channel: 'bank' });
    const sim = await client.sandbox.simulate(paid.id, { outcome: 'succeeded' });
    assert.equal(sim.payment_id, paid.id);
    await ctx.t.deliverNotifications();
    assert.equal((await client.payments.retrieve(paid.id)).status, 'succeeded');
    const refund = await client.refunds.create(paid.id, { amount: 50000, reason: 'requested_by_customer' });
    assert.match(refund.id, /^ref_/);
    assert.equal(refund.amount, 50000);
    assert.equal(refund.payment_id, paid.id);
    const again = await client.refunds.retrieve(refund.id);
    assert.equal(again.id, refund.id);
    const balance = await client.balance.retrieve({ verify: true });
    assert.equal(balance.object, 'balance');
    assert.equal(balance.verification?.status, 'ok');
  });

  it('settlements, reconciliation and its lines', async () => {
    const client = new Tributary(ctx.t.a.sandboxKey, { baseUrl: ctx.t.baseUrl });
    ctx.clock.advance(2 * DAY_MS);
    const from = ctx.clock.now();
    const { id } = await ctx.t.paidBankPayment();
    const settled = await client.sandbox.simulate(id, { outcome: 'settled' });
    assert.equal(settled.outcome, 'settled');
    ctx.clock.advance(1_000);
    const payment = await client.payments.retrieve(id);
    assert.ok(payment.settlement_id !== null, 'the payment names its settlement');

    const settlementIds: string[] = [];
    for await (const s of client.settlements.list({ limit: 1 })) settlementIds.push(s.id);
    assert.ok(settlementIds.includes(payment.settlement_id!));
    const settlement = await client.settlements.retrieve(payment.settlement_id!);
    assert.equal(settlement.id, payment.settlement_id);

    const rec = await client.reconciliation.create({
      connector: 'sandbox_bank',
      from: from.toISOString(),
      to: new Date(from.getTime() + DAY_MS).toISOString(),
    });
    assert.match(rec.id, /^rec_/);
    assert.ok(rec.lastResponse.idempotencyKey !== undefined, 'reconciliation create is keyed');
    assert.equal((await client.reconciliation.retrieve(rec.id)).id, rec.id);
    const lines = [];
    for await (const line of client.reconciliation.lines(rec.id, { limit: 1 })) lines.push(line);
    assert.ok(lines.some((l) => l.payment_id === id && l.result === 'matched'));
    const csv = await client.reconciliation.exportCsv(rec.id);
    assert.equal(typeof csv, 'string');
    assert.ok(csv.includes(id), 'the CSV lists the payment');
    const exceptions = await client.settlementExceptions.list();
    assert.equal(exceptions.object, 'list');
  });

  it('webhook endpoints and the event log: create, update, list, events by object, resend, deliveries, delete', async () => {
    const client = await freshClient();
    const endpoint = await client.webhookEndpoints.create({
      url: 'http://127.0.0.1:9999/hook',
      enabled_events: ['payment.pending'],
    });
    assert.match(endpoint.id, /^we_/);
    assert.match(endpoint.secret, /^whsec_/);
    const updated = await client.webhookEndpoints.update(endpoint.id, { description: 'orders' });
    assert.equal(updated.description, 'orders');
    assert.equal('secret' in (await client.webhookEndpoints.retrieve(endpoint.id)), false, 'the secret is shown once');
    const listed = await client.webhookEndpoints.list();
    assert.deepEqual(
      listed.data.map((e) => e.id),
      [endpoint.id],
    );
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { expire_previous_in_seconds: 0 });
    assert.notEqual(rotated.secret, endpoint.secret);

    const p = await client.payments.create(quickStart());
    const events = [];
    for await (const e of client.events.list({ object_id: p.id, limit: 1 })) events.push(e);
    assert.ok(events.length >= 1);
    const pending = events.find((e) => e.type === 'payment.pending');
    assert.ok(pending !== undefined, `payment.pending among ${events.map((e) => e.type).join()}`);
    const event = await client.events.retrieve(pending.id);
    assert.equal(event.data.object['id'], p.id);
    const resent = await client.events.resend(event.id, { endpoint_id: endpoint.id });
    assert.equal(resent.object, 'list');
    assert.ok(resent.data.length >= 1);
    const deliveries = await client.events.deliveries(event.id);
    assert.ok(deliveries.data.length >= 1);

    const deleted = await client.webhookEndpoints.delete(endpoint.id);
    assert.equal(deleted.deleted, true);
    await assert.rejects(client.webhookEndpoints.retrieve(endpoint.id), NotFoundError);

    // The audit log saw each change, newest first, paged two at a time by the cursor.
    const audited = [];
    for await (const entry of client.auditLog.list({ object_id: endpoint.id, limit: 2 })) audited.push(entry);
    assert.deepEqual(
      audited.map((e) => `${e.action} by ${e.actor.type}`),
      [
        'webhook_endpoint.deleted by api_key',
        'webhook_endpoint.secret_rotated by api_key',
        'webhook_endpoint.updated by api_key',
        'webhook_endpoint.created by api_key',
      ],
    );
    const redelivered = await client.auditLog.list({ action: 'event.redelivered' });
    assert.deepEqual(
      redelivered.data.map((e) => e.target.id),
      [event.id],
    );
  });

  it('throws typed errors carrying code, statusCode, requestId and param', async () => {
    const client = await freshClient();
    const invalid = await client.payments.create({ ...quickStart(), amount: '150000' as unknown as number }).then(
      () => assert.fail('expected an InvalidRequestError'),
      (e: unknown) => e,
    );
    assert.ok(invalid instanceof InvalidRequestError);
    assert.ok(invalid instanceof TributaryError);
    assert.equal(invalid.code, 'invalid_request');
    assert.equal(invalid.statusCode, 400);
    assert.equal(invalid.param, 'amount');
    assert.equal(invalid.details[0]?.['issue'], 'invalid_type');
    assert.match(invalid.requestId ?? '', /^req_/);
    assert.equal(invalid.requestId, invalid.headers['request-id']);

    const precise = await client.payments.create({ ...quickStart(), currency: 'USD', amount: 10.123 }).catch((e: unknown) => e);
    assert.ok(precise instanceof InvalidRequestError);
    assert.equal(precise.details[0]?.['issue'], 'amount_too_precise');

    await assert.rejects(
      client.payments.retrieve('pay_00000000000000000000000000'),
      (e: unknown) => e instanceof NotFoundError && e.code === 'resource_not_found' && e.statusCode === 404,
    );

    const body = quickStart();
    await client.payments.create(body);
    const conflict = await client.payments.create(body).catch((e: unknown) => e);
    assert.ok(conflict instanceof ConflictError, String(conflict));
    assert.equal(conflict.code, 'reference_no_conflict');

    const key = `reused-${ref()}`;
    await client.payments.create(quickStart(), { idempotencyKey: key });
    const reused = await client.payments.create(quickStart(), { idempotencyKey: key }).catch((e: unknown) => e);
    assert.ok(reused instanceof IdempotencyError);
    assert.equal(reused.code, 'idempotency_key_reused');
    assert.equal(reused.statusCode, 422);

    const badKey = new Tributary('sk_test_not_a_real_key', { baseUrl: ctx.t.baseUrl });
    await assert.rejects(
      badKey.payments.list(),
      (e: unknown) => e instanceof AuthenticationError && e.code === 'unauthorized' && e.statusCode === 401,
    );

    const badVersion = await freshClient({ apiVersion: '1999-01-01' });
    await assert.rejects(
      badVersion.payments.list(),
      (e: unknown) => e instanceof InvalidRequestError && e.code === 'invalid_api_version',
    );
    assert.throws(() => new Tributary(''), TypeError);
    await assert.rejects(client.payments.retrieve(''), TypeError);
  });
});
