import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createMemoryRateLimiter, takeToken } from '../../src/modules/rate-limits/rate-limiter.ts';
import { createRedisRateLimiter } from '../../src/modules/rate-limits/redis-rate-limiter.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const silent = createLogger('silent');

describe('token bucket', () => {
  it('allows a burst, then refills at the rate', () => {
    const limit = { perSecond: 2, burst: 3 };
    let state: { tokens: number; atMs: number } | undefined;
    const take = (nowMs: number) => {
      const r = takeToken(state, nowMs, limit);
      state = r.state;
      return r.decision;
    };
    assert.deepEqual(
      [take(0), take(0), take(0)].map((d) => d.allowed),
      [true, true, true],
    );
    assert.deepEqual(take(0), { allowed: false, retryAfterMs: 500 });
    assert.equal(take(499).allowed, false);
    assert.equal(take(500).allowed, true);
    assert.equal(take(10_000).allowed, true, 'refills up to the burst');
  });
});

describe('rate limits over HTTP', () => {
  let t: TestApp;
  const clock = new ManualClock(new Date());
  before(async () => {
    t = await createTestApp({ clock, rateLimiter: createMemoryRateLimiter({ perSecond: 1, burst: 3 }, clock) });
  });
  after(() => t.close());

  it('answers 429 rate_limited with Retry-After per merchant and environment, storing nothing', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await t.call('GET', '/payment/x')).statusCode, 404);
    const limited = await t.call('POST', '/payment/create', { body: quickStart() });
    assert.equal(limited.statusCode, 429);
    assert.equal(json(limited)['code'], 'rate_limited');
    assert.equal(limited.headers['retry-after'], '1');
    const rows = await t.testStore.store.query<{ n: bigint }>('SELECT count(*) AS n FROM payments');
    assert.equal(rows[0]?.n, 0n);
    assert.equal(
      (await t.call('GET', '/payment/x', { key: t.a.productionKey })).statusCode,
      404,
      'other environment: own bucket',
    );
    assert.equal((await t.call('GET', '/payment/x', { key: t.b.sandboxKey })).statusCode, 404, 'other merchant: own bucket');
    clock.advance(1_000);
    assert.equal((await t.call('GET', '/payment/x')).statusCode, 404);
    assert.equal((await t.call('GET', '/healthz', { key: null })).statusCode, 200, 'public routes are not limited');
  });

  it('exposes request metrics by route template at /metrics', async () => {
    const res = await t.call('GET', '/metrics', { key: null });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /tributary_http_requests_total\{route="\/payment\/:id",method="GET",status="404"\} \d+/);
    assert.doesNotMatch(res.body, /pay_[0-9A-Z]{26}/, 'no ids in labels');
  });
});

describe('rate limits shared through Redis', () => {
  it('two processes (limiters) share one bucket', async () => {
    const prefix = `test:${randomBytes(4).toString('hex')}:`;
    const a = createRedisRateLimiter(REDIS_URL, { perSecond: 0.001, burst: 4 }, silent, prefix);
    const b = createRedisRateLimiter(REDIS_URL, { perSecond: 0.001, burst: 4 }, silent, prefix);
    try {
      assert.equal(await a.ready(5_000), true, 'redis reachable');
      assert.equal(await b.ready(5_000), true);
      const results = [];
      for (let i = 0; i < 3; i += 1) results.push((await a.take('m1')).allowed, (await b.take('m1')).allowed);
      assert.deepEqual(results, [true, true, true, true, false, false]);
      const refused = await b.take('m1');
      assert.ok(refused.retryAfterMs > 0);
      assert.equal((await b.take('m2')).allowed, true, 'other bucket');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('fails open when Redis is unreachable', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const limiter = createRedisRateLimiter(`redis://127.0.0.1:${port}`, { perSecond: 1, burst: 1 }, silent);
    try {
      for (let i = 0; i < 3; i += 1) assert.equal((await limiter.take('m')).allowed, true);
    } finally {
      await limiter.close();
    }
  });
});
