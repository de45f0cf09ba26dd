import { Redis } from 'ioredis';
import type { Logger } from '../../lib/logger.ts';
import type { RateLimit, RateLimiter } from './rate-limiter.ts';

/**
 * The token bucket of rate-limiter.ts, kept in Redis so every API process shares it. The refill
 * and take run atomically in one Lua script, on Redis's own clock (no skew between processes).
 *
 * If Redis is unreachable we let the request through and log it: rate limiting protects the
 * service, it must not become the reason the service is down. Commands time out quickly so a
 * stalled Redis cannot queue requests either.
 */
const SCRIPT = `
local limit_per_s = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local data = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(data[1]) or burst
local at = tonumber(data[2]) or now_ms
local elapsed = now_ms - at
if elapsed < 0 then elapsed = 0 end
tokens = math.min(burst, tokens + elapsed * limit_per_s / 1000)
local allowed = 0
local retry_ms = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
else
  retry_ms = math.ceil((1 - tokens) * 1000 / limit_per_s)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now_ms))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / limit_per_s) + 1000)
return {allowed, retry_ms}
`;

export interface RedisRateLimiter extends RateLimiter {
  /** Resolves once connected, or after `timeoutMs` (the limiter then fails open until it connects). */
  ready(timeoutMs: number): Promise<boolean>;
}

export function createRedisRateLimiter(url: string, limit: RateLimit, log: Logger, prefix = 'tributary:rl:'): RedisRateLimiter {
  const redis = new Redis(url, {
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 200,
    connectTimeout: 1_000,
  });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis unavailable for rate limits'));
  redis.defineCommand('takeToken', { numberOfKeys: 1, lua: SCRIPT });
  type WithScript = Redis & { takeToken(key: string, perSecond: number, burst: number): Promise<[number, number]> };
  return {
    ready(timeoutMs) {
      if (redis.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        redis.once('ready', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    async take(bucket) {
      try {
        const [allowed, retryAfterMs] = await (redis as WithScript).takeToken(`${prefix}${bucket}`, limit.perSecond, limit.burst);
        return { allowed: allowed === 1, retryAfterMs };
      } catch {
        return { allowed: true, retryAfterMs: 0 }; // fail open; the error event has logged it
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
