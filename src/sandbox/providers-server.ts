import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from '../lib/logger.ts';
import { registerSandboxProviderRoutes, type SandboxProviders } from './sandbox-providers.ts';

/**
 * The sandbox providers as their own HTTP server (routes at the root, e.g. `/bank/v1/...`), for
 * `npm run sandbox:providers` and for the connector contract tests. Tributary then points
 * SANDBOX_PROVIDER_URL at it.
 */
export async function buildProvidersServer(providers: SandboxProviders, log: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
  });
  await registerSandboxProviderRoutes(app, providers, '');
  await app.ready();
  return app;
}
