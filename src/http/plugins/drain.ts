import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../lib/error-catalogue.ts';

/**
 * Graceful shutdown in two steps: refuse, then drain, then close. When shutdown starts, new API
 * requests get 503 `service_unavailable` (Retry-After: 1, Connection: close) while the listener
 * stays open, so that requests already running can finish everything they need — including their
 * calls to the sandbox providers, which in the embedded default are served by this same server.
 * Closing the listener first (Fastify's `close()`) would refuse those calls and turn in-flight
 * creates into 503s. main.ts awaits `drained()` (bounded) before closing.
 */
declare module 'fastify' {
  interface FastifyInstance {
    /** Resolves true when no API request is running, or false after `timeoutMs`. */
    drained(timeoutMs: number): Promise<boolean>;
  }
}

export function registerDrain(
  app: FastifyInstance,
  drain: { shuttingDown: boolean },
  options: { exempt: (url: string) => boolean },
): (timeoutMs: number) => Promise<boolean> {
  let running = 0;
  let waiter: (() => void) | undefined;
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url ?? '';
    if (options.exempt(url)) return;
    if (drain.shuttingDown && url !== '/healthz') {
      reply.header('Connection', 'close');
      throw new ApiError('service_unavailable', 'The server is shutting down. Retry shortly.', {
        headers: { 'Retry-After': '1' },
      });
    }
    running += 1;
    // 'close' fires for answered and for abandoned requests alike, so the count never leaks.
    reply.raw.once('close', () => {
      running -= 1;
      if (running === 0) waiter?.();
    });
  });
  return (timeoutMs) =>
    new Promise((resolve) => {
      if (running === 0) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
}
