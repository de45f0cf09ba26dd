import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { createMemoryRateLimiter } from '../../src/modules/rate-limits/rate-limiter.ts';
import { ConnectionError, IdempotencyError, RateLimitError, ServiceUnavailableError, Tributary } from '../../sdk/src/index.ts';
import { createTestApp, ref, type TestApp } from '../harness/test-app.ts';
import { type DropProxy, startDropProxy } from './drop-proxy.ts';

/**
 * The SDK's retries against the real server on loopback (embedded store, or PostgreSQL with
 * TEST_STORE=postgres): the same Idempotency-Key on every try of one call, so a retry after a lost
 * answer returns the first payment; Retry-After honoured on 429 (the server's own rate limiter)
 * and 409/503; and no retry where a retry could do the work twice.
 */

const quickStart = () => ({ amount: 150000.0, currency: 'IDR', reference_no: ref('sdk'), email: 'payer@example.com' });

async function paymentsWithReference(t: TestApp, reference: string): Promise<number> {
  const rows = await t.testStore.store.query<{ n: bigint | string }>(
    'SELECT count(*) AS n FROM payments WHERE reference_no = $1',
    [reference],
  );
  return Number(rows[0]?.n);
}

/** Polls a condition (bounded: 10 s), for a state another request reaches. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1_000; i += 1) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached within 10 s');
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

describe('SDK retries: lost answers and idempotency keys', () => {
  let t: TestApp;
  let proxy: DropProxy;
  const sleeps: number[] = [];
  let client: Tributary;

  before(async () => {
    t = await createTestApp();
    proxy = await startDropProxy(t.baseUrl);
    client = new Tributary(t.a.sandboxKey, {
      baseUrl: proxy.url,
      timeoutMs: 15_000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    });
  });
  after(async () => {
    await proxy.close();
    await t.close();
  });

  it('retries a create whose answer was lost with the same key and gets the same payment, once', async () => {
    const start = proxy.seen.length;
    proxy.drop = (index) => index === start;
    const body = quickStart();
    const payment = await client.payments.create(body);
    const tries = proxy.seen.slice(start);
    assert.equal(tries.length, 2, 'one lost answer, one retry');
    assert.equal(tries[0]?.dropped, true);
    assert.equal(tries[0]?.upstreamStatus, 201, 'the server had created the payment before the answer was lost');
    const keys = tries.map((r) => header(r.headers['idempotency-key']));
    assert.ok(keys[0]?.startsWith('tributary-node-'), `generated key: ${String(keys[0])}`);
    assert.equal(keys[1], keys[0], 'the retry reuses the key of its logical call');
    assert.equal(payment.lastResponse.replayed, true, 'the server replayed the stored answer');
    assert.equal(payment.lastResponse.attempts, 2);
    assert.equal(payment.lastResponse.idempotencyKey, keys[0]);
    assert.equal(payment.reference_no, body.reference_no);
    assert.equal(await paymentsWithReference(t, body.reference_no), 1, 'exactly one payment exists');
    const again = await client.payments.retrieve(payment.id);
    assert.equal(again.id, payment.id);
  });

  it('uses the caller’s key, and two logical calls get two keys', async () => {
    proxy.drop = () => false;
    const start = proxy.seen.length;
    const mine = `order-${ref()}`;
    const a = await client.payments.create(quickStart(), { idempotencyKey: mine });
    const b = await client.payments.create(quickStart());
    const c = await client.payments.create(quickStart());
    const keys = proxy.seen.slice(start).map((r) => header(r.headers['idempotency-key']));
    assert.equal(keys[0], mine);
    assert.notEqual(keys[1], keys[2]);
    assert.equal(a.lastResponse.idempotencyKey, mine);
    assert.notEqual(b.id, c.id);
  });

  it('retries a refund whose answer was lost with the same key: one refund', async () => {
    const { id } = await t.paidBankPayment();
    const start = proxy.seen.length;
    proxy.drop = (index) => index === start;
    const refund = await client.refunds.create(id, { amount: 50000 });
    const tries = proxy.seen.slice(start);
    assert.equal(tries.length, 2);
    assert.equal(header(tries[1]?.headers['idempotency-key']), header(tries[0]?.headers['idempotency-key']));
    assert.equal(refund.lastResponse.replayed, true);
    const rows = await t.testStore.store.query<{ id: string }>('SELECT id FROM refunds WHERE payment_id = $1', [id]);
    assert.deepEqual(
      rows.map((r) => r.id),
      [refund.id],
    );
  });

  it('retries a checkout selection whose answer was lost: a new selection, the lost one’s payment canceled', async () => {
    proxy.drop = () => false;
    const checkout = await client.checkouts.create(quickStart());
    const start = proxy.seen.length;
    proxy.drop = (index) => index === start;
    const selected = await client.checkouts.select(checkout.id, { client_secret: checkout.client_secret!, channel: 'bank' });
    proxy.drop = () => false;
    const tries = proxy.seen.slice(start);
    assert.equal(tries.length, 2, 'one lost answer, one retry');
    assert.equal(tries[0]?.upstreamStatus, 200, 'the server had made a payment before the answer was lost');
    const keys = tries.map((r) => header(r.headers['idempotency-key']));
    assert.ok(keys[0]?.startsWith('tributary-node-'), `generated key: ${String(keys[0])}`);
    assert.equal(keys[1], keys[0], 'the same key on the retry (the server ignores it on select)');
    assert.equal(selected.lastResponse.attempts, 2);
    assert.equal(selected.payments.length, 2, 'the retry was a second selection');
    assert.equal(selected.payments[1], selected.payment.id);
    const first = await client.payments.retrieve(selected.payments[0]!);
    assert.equal(first.status, 'canceled', 'the lost answer’s payment was canceled before the new one was made');
    assert.equal(selected.payment.status, 'pending');
    assert.equal(await paymentsWithReference(t, checkout.reference_no), 2);
  });

  it('does not retry a lost answer of an operation without idempotency (webhook endpoint create)', async () => {
    const start = proxy.seen.length;
    proxy.drop = (index) => index === start;
    await assert.rejects(
      client.webhookEndpoints.create({ url: 'https://shop.example.com/hooks' }),
      (e: unknown) => e instanceof ConnectionError && e.code === 'connection_error' && e.statusCode === undefined,
    );
    assert.equal(proxy.seen.length - start, 1, 'a retry could have made a second endpoint: not sent');
  });

  it('gives up after maxRetries lost answers with a ConnectionError that names the key to retry with', async () => {
    const start = proxy.seen.length;
    proxy.drop = (index) => index >= start;
    const body = quickStart();
    const error = await client.payments.create(body, { maxRetries: 1 }).then(
      () => assert.fail('expected a ConnectionError'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ConnectionError);
    assert.equal(proxy.seen.length - start, 2, 'first try + 1 retry');
    proxy.drop = () => false;
    // The caller retries later with the key from the error: still the same payment.
    const later = await client.payments.create(body, { idempotencyKey: error.idempotencyKey! });
    assert.equal(later.lastResponse.replayed, true);
    assert.equal(await paymentsWithReference(t, body.reference_no), 1);
  });

  it('waits out 409 idempotency_request_in_progress and returns the first request’s payment', async () => {
    proxy.drop = () => false;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.provider('sandbox_bank').faults = { create: { mode: 'latency', until: held, remaining: 1 } };
    const key = `held-${ref()}`;
    const body = { ...quickStart(), channel: 'bank' as const };
    const direct = new Tributary(t.a.sandboxKey, { baseUrl: t.baseUrl, timeoutMs: 15_000 });
    const first = direct.payments.create(body, { idempotencyKey: key });
    // The second request goes out once the first one owns the key (its payment row exists).
    await until(async () => (await paymentsWithReference(t, body.reference_no)) > 0);
    const waits: number[] = [];
    const second = new Tributary(t.a.sandboxKey, {
      baseUrl: t.baseUrl,
      sleep: async (ms) => {
        waits.push(ms);
        release(); // the first request finishes while the second one waits
        await first;
      },
    }).payments.create(body, { idempotencyKey: key });
    const [a, b] = await Promise.all([first, second]);
    assert.equal(b.id, a.id);
    assert.equal(b.lastResponse.replayed, true);
    assert.equal(b.lastResponse.attempts, 2);
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! >= 1000, `waited at least Retry-After (≥ 1 s): ${waits[0]}`);
    t.provider('sandbox_bank').faults = {};
  });

  it('a 409 in progress with retries off is an IdempotencyError carrying Retry-After', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    t.provider('sandbox_bank').faults = { create: { mode: 'latency', until: held, remaining: 1 } };
    const key = `held-${ref()}`;
    const body = { ...quickStart(), channel: 'bank' as const };
    const direct = new Tributary(t.a.sandboxKey, { baseUrl: t.baseUrl });
    const first = direct.payments.create(body, { idempotencyKey: key });
    await until(async () => (await paymentsWithReference(t, body.reference_no)) > 0);
    const error = await direct.payments.create(body, { idempotencyKey: key, maxRetries: 0 }).then(
      () => assert.fail('expected an IdempotencyError'),
      (e: unknown) => e,
    );
    release();
    await first;
    t.provider('sandbox_bank').faults = {};
    assert.ok(error instanceof IdempotencyError);
    assert.equal(error.code, 'idempotency_request_in_progress');
    assert.equal(error.statusCode, 409);
    assert.match(error.requestId ?? '', /^req_/);
    assert.ok(Number(error.headers['retry-after']) >= 1);
  });

  it('retries 503 provider_unavailable with the same key after Retry-After, resuming the same payment', async () => {
    proxy.drop = () => false;
    const bank = t.provider('sandbox_bank');
    bank.faults = { create: { mode: 'error' } };
    const waits: number[] = [];
    const c = new Tributary(t.a.sandboxKey, {
      baseUrl: proxy.url,
      sleep: async (ms) => {
        waits.push(ms);
        bank.faults = {}; // the provider is back by the time the client retries
      },
    });
    const start = proxy.seen.length;
    const body = { ...quickStart(), channel: 'bank' as const };
    const payment = await c.payments.create(body);
    const tries = proxy.seen.slice(start);
    assert.deepEqual(
      tries.map((r) => r.upstreamStatus),
      [503, 201],
    );
    assert.equal(header(tries[1]?.headers['idempotency-key']), header(tries[0]?.headers['idempotency-key']));
    assert.equal(payment.status, 'pending');
    assert.equal(await paymentsWithReference(t, body.reference_no), 1);
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! >= 1000, `waited at least Retry-After: ${waits[0]}`);
  });

  it('a 503 with retries off is a ServiceUnavailableError', async () => {
    const bank = t.provider('sandbox_bank');
    bank.faults = { create: { mode: 'error' } };
    const c = new Tributary(t.a.sandboxKey, { baseUrl: t.baseUrl, maxRetries: 0 });
    const error = await c.payments.create({ ...quickStart(), channel: 'bank' }).then(
      () => assert.fail('expected a ServiceUnavailableError'),
      (e: unknown) => e,
    );
    bank.faults = {};
    assert.ok(error instanceof ServiceUnavailableError);
    assert.equal(error.code, 'provider_unavailable');
    assert.ok((error.retryAfterSeconds ?? 0) >= 1);
  });
});

describe('SDK retries: 429 from the server’s rate limiter', () => {
  let t: TestApp;
  // The limiter runs on its own manual clock: the client's waits move it, so nothing sleeps.
  const limiterClock = new ManualClock(new Date());
  before(async () => {
    t = await createTestApp({ rateLimiter: createMemoryRateLimiter({ perSecond: 1, burst: 2 }, limiterClock) });
  });
  after(() => t.close());

  it('waits at least Retry-After, then succeeds', async () => {
    const waits: number[] = [];
    const client = new Tributary(t.a.sandboxKey, {
      baseUrl: t.baseUrl,
      sleep: async (ms) => {
        waits.push(ms);
        limiterClock.advance(ms);
      },
    });
    const created = await client.payments.create(quickStart());
    await client.payments.retrieve(created.id); // the bucket (burst 2) is empty now
    const again = await client.payments.retrieve(created.id);
    assert.equal(again.id, created.id);
    assert.equal(again.lastResponse.attempts, 2, 'one 429, then the retry');
    assert.equal(waits.length, 1);
    assert.ok(waits[0]! >= 1000, `Retry-After is 1 s; waited ${waits[0]} ms`);
    assert.ok(waits[0]! <= 1100, `with at most 10 % jitter on top: ${waits[0]} ms`);
  });

  it('throws RateLimitError with retryAfterSeconds when retries are off', async () => {
    const client = new Tributary(t.a.sandboxKey, { baseUrl: t.baseUrl, maxRetries: 0 });
    let error: unknown;
    for (let i = 0; i < 5 && error === undefined; i += 1) {
      await client.payments.list({ limit: 1 }).then(
        () => undefined,
        (e: unknown) => (error = e),
      );
    }
    assert.ok(error instanceof RateLimitError, String(error));
    assert.equal(error.statusCode, 429);
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.retryAfterSeconds, 1);
    assert.match(error.requestId ?? '', /^req_/);
  });

  it('retries a 429 even for an operation without idempotency (refused before any work)', async () => {
    limiterClock.advance(10_000); // full bucket
    const waits: number[] = [];
    const client = new Tributary(t.a.sandboxKey, {
      baseUrl: t.baseUrl,
      sleep: async (ms) => {
        waits.push(ms);
        limiterClock.advance(ms);
      },
    });
    await client.balance.retrieve();
    await client.balance.retrieve();
    const secret = await client.callbackSecret.rotate({ expire_previous_in_seconds: 0 });
    assert.equal(secret.lastResponse.attempts, 2);
    assert.equal(waits.length, 1);
  });
});
