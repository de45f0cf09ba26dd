import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../lib/error-catalogue.ts';
import type { RateLimiter } from '../../modules/rate-limits/rate-limiter.ts';

/**
 * 429 `rate_limited` with Retry-After once a principal (merchant × environment) has used its
 * bucket. Runs after authentication, before the body is read, and stores nothing.
 */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onRequest', async (request) => {
    const principal = request.principal;
    if (principal === null) return;
    const decision = await limiter.take(`${principal.merchantId}:${principal.environment}`);
    if (!decision.allowed) {
      const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new ApiError('rate_limited', `Too many requests. Retry after ${seconds} second(s).`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
  });
}
