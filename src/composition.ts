import type { ConnectorRegistry } from './connectors/core/registry.ts';
import type { Store } from './db/store.ts';
import type { Readiness } from './http/routes/ops/health.route.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { REFUND_SYNC_DELAY_MS } from './jobs/refund-sync.ts';
import type { LifecycleDeps } from './kernel/index.ts';
import type { Clock } from './lib/clock.ts';
import type { Failpoints } from './lib/failpoints.ts';
import type { Logger } from './lib/logger.ts';
import { Allowlist } from './lib/net/address-policy.ts';
import { createSecretBox } from './lib/secret-box.ts';
import type { Authenticator } from './modules/merchants/authenticator.ts';
import type { RateLimiter } from './modules/rate-limits/rate-limiter.ts';
import type { ConnectorHealthTracker } from './modules/routing/connector-health.ts';
import { SECRET_BOX_PURPOSE } from './modules/webhooks/webhook-secrets.ts';
import { completeCheckoutOfPayment } from './modules/checkouts/index.ts';
import type { SandboxProviders } from './sandbox/sandbox-providers.ts';

/**
 * The composition root: what the process provides (AppDeps), and every module's dependencies built
 * from it once (composeModules). The HTTP app, the jobs and the tests take their wiring from here.
 */
export interface AppDeps {
  store: Store;
  clock: Clock;
  connectors: ConnectorRegistry;
  authenticator: Authenticator;
  failpoints: Failpoints;
  log: Logger;
  readiness: Readiness;
  publicBaseUrl: string;
  /** Deployment secret (TRIBUTARY_SECRET): seals webhook signing secrets at rest. */
  secret: string;
  webhookAllowlist: readonly string[];
  bodyLimitBytes: number;
  idempotencyLeaseMs: number;
  idempotencyTtlHours: number;
  connectorTimeoutMs: number;
  /** Absent: no rate limiting (tests, benchmarks with RATE_LIMIT_PER_SECOND=0). */
  rateLimiter?: RateLimiter;
  /** Mails invitation links (SMTP_URL set); absent: the dashboard shows them to copy only. */
  mailInvitation?: (to: string, merchantName: string, link: string) => Promise<void>;
  /** The sandbox providers, when they run inside this process (the embedded default). */
  sandboxProviders?: SandboxProviders;
  health?: ConnectorHealthTracker;
  /** The embedded store's DATA_DIR (absent on PostgreSQL): /metrics reports its disk (docs/operations.md). */
  dataDir?: string;
  statusSyncDelayMs?: number;
  /** First re-send of a refund the provider left pending (default REFUND_SYNC_DELAY_MS). */
  refundSyncDelayMs?: number;
  /** Called when a provider notification was stored (main.ts starts processing at once). */
  onNotificationStored?: () => void;
}

const HOUR_MS = 3_600_000;

/** The module wiring: the routes' dependencies, plus what the jobs share with them. */
export interface ModuleWiring extends RouteDeps {
  lifecycle: LifecycleDeps;
  /** Lifecycle changes that call providers (sweeper, syncs, settlement ingestion). */
  providerCalls: LifecycleDeps & { connectors: ConnectorRegistry; connectorTimeoutMs: number };
}

export function composeModules(deps: AppDeps): ModuleWiring {
  const lifecycle: LifecycleDeps = {
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    publicBaseUrl: deps.publicBaseUrl,
    // A payment of a checkout that succeeds completes the checkout, in the same transaction.
    paymentSucceeded: (tx, payment, now) => completeCheckoutOfPayment(tx, deps.publicBaseUrl, payment, now),
  };
  const providerCalls = { ...lifecycle, connectors: deps.connectors, connectorTimeoutMs: deps.connectorTimeoutMs };
  const idempotency = { idempotencyLeaseMs: deps.idempotencyLeaseMs, idempotencyTtlMs: deps.idempotencyTtlHours * HOUR_MS };
  const keyedProviderCalls = { ...providerCalls, ...idempotency };
  const allowlist = new Allowlist(deps.webhookAllowlist);
  const createPayment = {
    ...keyedProviderCalls,
    failpoints: deps.failpoints,
    ...(deps.health === undefined ? {} : { health: deps.health }),
    ...(deps.statusSyncDelayMs === undefined ? {} : { statusSyncDelayMs: deps.statusSyncDelayMs }),
  };
  return {
    lifecycle,
    providerCalls,
    store: deps.store,
    clock: deps.clock,
    allowlist,
    publicBaseUrl: deps.publicBaseUrl,
    connectors: deps.connectors,
    createPayment,
    cancelPayment: keyedProviderCalls,
    checkout: keyedProviderCalls,
    selectCheckout: { createPayment, cancelPayment: keyedProviderCalls, selectLeaseMs: deps.idempotencyLeaseMs },
    expireCheckout: { ...lifecycle, cancelPayment: keyedProviderCalls },
    paymentLinks: keyedProviderCalls,
    refund: {
      ...keyedProviderCalls,
      failpoints: deps.failpoints,
      refundSyncDelayMs: deps.refundSyncDelayMs ?? REFUND_SYNC_DELAY_MS,
    },
    reconcile: keyedProviderCalls,
    simulate: providerCalls,
    receive: { store: deps.store, clock: deps.clock, connectors: deps.connectors, log: deps.log },
    webhooks: { store: deps.store, clock: deps.clock, secretBox: createSecretBox(deps.secret, SECRET_BOX_PURPOSE), allowlist },
    ...(deps.onNotificationStored === undefined ? {} : { onNotificationStored: deps.onNotificationStored }),
    ...(deps.sandboxProviders === undefined ? {} : { sandboxProviders: deps.sandboxProviders }),
  };
}
