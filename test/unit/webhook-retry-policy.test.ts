import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  JITTER_RATIO,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_MS,
  nextRetryDelayMs,
  outcomeOfStatus,
  parseRetryAfterMs,
  RETRY_SCHEDULE_MS,
} from '../../src/modules/webhooks/retry-policy.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

describe('retry policy', () => {
  it('follows product.md: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then exhausted', () => {
    assert.deepEqual(RETRY_SCHEDULE_MS, [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H]);
    assert.equal(MAX_ATTEMPTS, 10);
    const noJitter = () => 0.5;
    assert.equal(nextRetryDelayMs(1, noJitter), 5 * S);
    assert.equal(nextRetryDelayMs(9, noJitter), 24 * H);
    assert.equal(nextRetryDelayMs(10, noJitter), undefined);
    const total = RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    assert.equal(total, 75 * H + 35 * M + 5 * S, 'about three days');
  });

  it('jitters every wait by at most ±10 %', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (n, r) => {
        const base = RETRY_SCHEDULE_MS[n] as number;
        const delay = nextRetryDelayMs(n, () => r) as number;
        assert.ok(
          delay >= Math.floor(base * (1 - JITTER_RATIO)) && delay <= Math.ceil(base * (1 + JITTER_RATIO)),
          `${delay} vs ${base}`,
        );
      }),
    );
    assert.notEqual(
      nextRetryDelayMs(3, () => 0),
      nextRetryDelayMs(3, () => 0.99),
    );
  });

  it('honours a longer Retry-After (capped at 24 h) but never adds attempts', () => {
    const noJitter = () => 0.5;
    assert.equal(nextRetryDelayMs(1, noJitter, 120 * S), 120 * S, 'longer than the 5 s step');
    assert.equal(nextRetryDelayMs(2, noJitter, 1 * S), 5 * M, 'shorter: the schedule wins');
    assert.equal(nextRetryDelayMs(1, noJitter, 10 * 24 * H), MAX_RETRY_AFTER_MS);
    assert.equal(nextRetryDelayMs(MAX_ATTEMPTS, noJitter, 1 * S), undefined);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.equal(parseRetryAfterMs('120', now), 120 * S);
    assert.equal(parseRetryAfterMs(' 0 ', now), 0);
    assert.equal(parseRetryAfterMs('Thu, 01 Jan 2026 00:10:00 GMT', now), 10 * M);
    assert.equal(parseRetryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now), 0, 'a date in the past means now');
    assert.equal(parseRetryAfterMs(['30', '60'], now), 30 * S);
    assert.equal(parseRetryAfterMs('9999999', now), MAX_RETRY_AFTER_MS);
    for (const bad of [undefined, '', 'soon', '-5', '1.5']) assert.equal(parseRetryAfterMs(bad, now), undefined, String(bad));
  });

  it('classifies status codes: 2xx success, 3xx redirect (not followed), 410 gone, the rest failures', () => {
    assert.deepEqual(outcomeOfStatus(200), { outcome: 'succeeded', gone: false });
    assert.deepEqual(outcomeOfStatus(204), { outcome: 'succeeded', gone: false });
    assert.deepEqual(outcomeOfStatus(299), { outcome: 'succeeded', gone: false });
    assert.deepEqual(outcomeOfStatus(301), { outcome: 'redirect', gone: false });
    assert.deepEqual(outcomeOfStatus(308), { outcome: 'redirect', gone: false });
    assert.deepEqual(outcomeOfStatus(410), { outcome: 'http_error', gone: true });
    for (const s of [100, 400, 404, 429, 500, 503]) assert.deepEqual(outcomeOfStatus(s), { outcome: 'http_error', gone: false });
  });
});
