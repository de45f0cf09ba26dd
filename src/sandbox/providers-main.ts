import { systemClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { buildProvidersServer } from './providers-server.ts';
import { createSandboxProviders } from './sandbox-providers.ts';

/**
 * `npm run sandbox:providers`: the sandbox bank, e-wallet and counter partner as a separate
 * process. Configuration (environment):
 *
 * - SANDBOX_PROVIDERS_PORT (default 8090), SANDBOX_PROVIDERS_HOST (default 127.0.0.1)
 * - SANDBOX_PROVIDER_SECRET (required, ≥ 32 characters): the master secret; Tributary must be
 *   started with the same value and SANDBOX_PROVIDER_URL=http://127.0.0.1:8090
 * - TRIBUTARY_URL (default http://127.0.0.1:8080): where notifications are sent
 * - SANDBOX_SETTLEMENT_DELAY_MS (default 86400000, T+1): paid charges settle this long after
 *   payment; 0 settles only on demand (simulate `settled`)
 */
const env = process.env;
const secret = env['SANDBOX_PROVIDER_SECRET'] ?? '';
if (secret.length < 32) {
  process.stderr.write('sandbox providers: SANDBOX_PROVIDER_SECRET (at least 32 characters) is required\n');
  process.exit(2);
}
const port = Number(env['SANDBOX_PROVIDERS_PORT'] ?? '8090');
const host = env['SANDBOX_PROVIDERS_HOST'] ?? '127.0.0.1';
const tributaryUrl = (env['TRIBUTARY_URL'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const log = createLogger(env['LOG_LEVEL'] ?? 'info');
const settlementDelayMs = Number(env['SANDBOX_SETTLEMENT_DELAY_MS'] ?? '86400000');
const providers = createSandboxProviders({
  clock: systemClock,
  masterSecret: secret,
  callbackBaseUrl: () => tributaryUrl,
  log,
  autoDispatch: true,
  settlementDelayMs: Number.isSafeInteger(settlementDelayMs) && settlementDelayMs > 0 ? settlementDelayMs : null,
});
const app = await buildProvidersServer(providers, log);
const address = await app.listen({ host, port });
providers.start();
process.stdout.write(`Sandbox providers listening on ${address}; notifying ${tributaryUrl}/provider/{connector}/callback\n`);
const stop = async () => {
  providers.stop();
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
