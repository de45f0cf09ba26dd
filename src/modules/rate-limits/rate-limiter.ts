import type { Clock } from '../../lib/clock.ts';

/**
 * Per-principal rate limits: a token bucket of `burst` tokens refilled at `perSecond`. One
 * request costs one token. In one process the buckets live in memory; with REDIS_URL they live in
 * Redis so that every API process shares them (redis-rate-limiter.ts).
 */
export interface RateLimitDecision {
  allowed: boolean;
  /** When refused: milliseconds until one token is available. */
  retryAfterMs: number;
}

export interface RateLimiter {
  take(bucket: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** The pure refill-and-take step shared by the in-memory limiter and the Redis script's contract. */
export function takeToken(
  state: { tokens: number; atMs: number } | undefined,
  nowMs: number,
  limit: RateLimit,
): { state: { tokens: number; atMs: number }; decision: RateLimitDecision } {
  const elapsedMs = state === undefined ? 0 : Math.max(0, nowMs - state.atMs);
  const tokens = Math.min(limit.burst, (state?.tokens ?? limit.burst) + (elapsedMs * limit.perSecond) / 1000);
  if (tokens >= 1) return { state: { tokens: tokens - 1, atMs: nowMs }, decision: { allowed: true, retryAfterMs: 0 } };
  return {
    state: { tokens, atMs: nowMs },
    decision: { allowed: false, retryAfterMs: Math.ceil(((1 - tokens) * 1000) / limit.perSecond) },
  };
}

/** Buckets idle long enough to be full again are dropped, so memory stays bounded by active callers. */
const MAX_BUCKETS = 100_000;

export function createMemoryRateLimiter(limit: RateLimit, clock: Clock): RateLimiter {
  const buckets = new Map<string, { tokens: number; atMs: number }>();
  return {
    async take(bucket) {
      const nowMs = clock.now().getTime();
      const { state, decision } = takeToken(buckets.get(bucket), nowMs, limit);
      if (!buckets.has(bucket) && buckets.size >= MAX_BUCKETS) {
        const fullAfterMs = (limit.burst / limit.perSecond) * 1000;
        for (const [k, v] of buckets) if (nowMs - v.atMs > fullAfterMs) buckets.delete(k);
        if (buckets.size >= MAX_BUCKETS) buckets.delete(buckets.keys().next().value as string);
      }
      buckets.set(bucket, state);
      return decision;
    },
    async close() {},
  };
}
