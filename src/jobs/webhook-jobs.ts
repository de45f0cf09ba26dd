import { eventObjectTemplate } from '../catalogue/event-examples.ts';
import type { Config } from '../config.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { Allowlist } from '../lib/net/address-policy.ts';
import { createOutboundClient } from '../lib/net/outbound-http.ts';
import { createSecretBox } from '../lib/secret-box.ts';
import { DEFAULT_DISABLE_AFTER_MS } from '../modules/webhooks/delivery-service.ts';
import { SECRET_BOX_PURPOSE } from '../modules/webhooks/webhook-secrets.ts';
import type { Job } from './job-runner.ts';
import { createDispatcher, type Dispatcher } from './webhook-dispatcher.ts';
import { webhookRetentionJob } from './webhook-retention.ts';

/**
 * The webhook dispatcher and its retention job as configured, for the server process (embedded
 * or PostgreSQL, RUN_JOBS) and for `npx tributary worker`.
 */
export function webhookJobs(
  config: Config,
  deps: { store: Store; secret: string; clock: Clock; log: Logger },
): { dispatcher: Dispatcher; retention: Job; close(): Promise<void> } {
  const http = createOutboundClient({
    allowlist: new Allowlist(config.webhookAllowlist),
    // Several endpoints (and many merchants' callback URLs) can share one host: the dispatcher
    // enforces the per-endpoint limit itself, and a tighter pool here would queue sends inside
    // the agent, where their deadline runs while nothing is sent.
    maxSocketsPerHost: config.webhookConcurrency,
    maxSockets: config.webhookConcurrency,
  });
  const dispatcher = createDispatcher({
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    secretBox: createSecretBox(deps.secret, SECRET_BOX_PURPOSE),
    http,
    random: Math.random,
    timeoutMs: config.webhookTimeoutMs,
    connectTimeoutMs: config.webhookConnectTimeoutMs,
    leaseMs: config.webhookLeaseMs,
    disableAfterMs: DEFAULT_DISABLE_AFTER_MS,
    eventObjectTemplate,
    concurrency: config.webhookConcurrency,
    perTargetConcurrency: config.webhookConcurrencyPerEndpoint,
    pollIntervalMs: config.webhookPollMs,
  });
  const retention = webhookRetentionJob({
    store: deps.store,
    clock: deps.clock,
    eventRetentionDays: config.eventRetentionDays,
    deliveryRetentionDays: config.webhookDeliveryRetentionDays,
  });
  return {
    dispatcher,
    retention,
    async close() {
      await dispatcher.stop();
      http.close();
    },
  };
}
