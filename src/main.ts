import { resolve } from 'node:path';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { buildApp } from './app.ts';
import { type AppDeps, composeModules } from './composition.ts';
import { DataDirInUseError, markDataDirsStopping } from './db/data-dir-lock.ts';
import { MigrationError } from './db/migrate.ts';
import { creationCompleterJob } from './jobs/creation-completer.ts';
import { expirySweeperJob } from './jobs/expiry-sweeper.ts';
import { checkoutExpiryJob } from './jobs/checkout-expiry.ts';
import { notificationProcessor } from './jobs/notification-processor.ts';
import { settlementIngestJob } from './jobs/settlement-ingest.ts';
import { REFUND_SYNC_DELAY_MS, refundSyncJob } from './jobs/refund-sync.ts';
import { statusSyncJob } from './jobs/status-sync.ts';
import { embeddedMaintenanceJob } from './jobs/embedded-maintenance.ts';
import { scheduledBackupJob } from './jobs/scheduled-backup.ts';
import { serveAdminSocket } from './db/backup/admin-socket.ts';
import { adminInvocationOf, runAdminCommand } from './cli/admin-commands.ts';
import { takeEmbeddedBackup } from './db/backup/embedded-backup.ts';
import { startJobs } from './jobs/job-runner.ts';
import { idempotencyRetentionJob } from './jobs/retention.ts';
import { payerDataRetentionJob } from './jobs/payer-data-retention.ts';
import { overviewRefreshJob } from './jobs/overview-refresh.ts';
import { webhookJobs } from './jobs/webhook-jobs.ts';
import { systemClock } from './lib/clock.ts';
import { parseFailpoints } from './lib/failpoints.ts';
import { tuneHeapForRequestService } from './lib/heap-tuning.ts';
import { createLogger } from './lib/logger.ts';
import { startTracing } from './lib/tracing.ts';
import { createAuthenticator } from './modules/merchants/authenticator.ts';
import { countMerchants, listMerchants } from './modules/merchants/merchant-repo.ts';
import { createMerchantService, OPERATOR } from './modules/merchants/merchant-service.ts';
import { releaseAllLeases } from './modules/idempotency/idempotency-repo.ts';
import { createMemoryRateLimiter, type RateLimiter } from './modules/rate-limits/rate-limiter.ts';
import { createRedisRateLimiter } from './modules/rate-limits/redis-rate-limiter.ts';
import { releaseAllDeliveryLeases } from './modules/webhooks/delivery-repo.ts';
import { ConnectorHealthTracker } from './modules/routing/connector-health.ts';
import { createInvitationMailer, firstOwnerLink } from './modules/team/index.ts';
import { openRuntime, publicBaseUrl as publicBaseUrlOf, warnIfNotDurable } from './runtime.ts';
import { createSandboxProviders } from './sandbox/sandbox-providers.ts';

/** Reads config, opens the store, builds the app, listens, runs the jobs. Nothing else. */
async function main(config: Config): Promise<void> {
  tuneHeapForRequestService();
  const log = createLogger(config.logLevel);
  // Before the runtime, whose store is traced when tracing is on (docs/tracing.md); off: nothing.
  const tracing = await startTracing({ endpoint: config.otlpEndpoint, log });
  const runtime = await openRuntime(config, 'server', log);
  const { store, secret, connectors } = runtime;
  await warnIfNotDurable(store, log);
  const clock = systemClock;
  const embedded = config.databaseUrl === undefined;

  if (embedded) {
    // Only this process can hold leases on the embedded store: any left are a dead predecessor's.
    const released = await releaseAllLeases(store, clock.now());
    if (released > 0) log.info({ released }, 'released idempotency leases of the previous process');
    // Same for webhook deliveries: whatever the previous process had in flight is due again now.
    const deliveries = await releaseAllDeliveryLeases(store, clock.now());
    if (deliveries > 0) log.info({ deliveries }, 'released webhook delivery leases of the previous process');
  }

  const readiness = { shuttingDown: false };
  const publicBaseUrl = publicBaseUrlOf(config);
  const failpoints = parseFailpoints(config.failpoints);
  let rateLimiter: RateLimiter | undefined;
  if (config.rateLimitPerSecond > 0) {
    const limit = { perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst };
    if (config.redisUrl === undefined) rateLimiter = createMemoryRateLimiter(limit, clock);
    else {
      const shared = createRedisRateLimiter(config.redisUrl, limit, log);
      if (!(await shared.ready(2_000))) log.warn('redis not reachable yet: rate limits fail open until it is');
      rateLimiter = shared;
    }
  }
  const health = new ConnectorHealthTracker();
  // The sandbox providers live in this process unless SANDBOX_PROVIDER_URL points elsewhere; either
  // way the connectors reach them over HTTP and they notify us over HTTP (docs/sandbox.md).
  const sandboxProviders =
    config.sandboxProviderUrl === undefined
      ? createSandboxProviders({
          clock,
          masterSecret: runtime.sandboxSecret,
          callbackBaseUrl: () => runtime.loopback.url(),
          log,
          autoDispatch: true,
          settlementDelayMs: config.sandboxSettlementDelayMs === 0 ? null : config.sandboxSettlementDelayMs,
        })
      : undefined;
  const appDeps: AppDeps = {
    store,
    clock,
    connectors,
    authenticator: createAuthenticator({ store, clock, secret, cacheTtlMs: config.authCacheTtlMs }),
    failpoints,
    log,
    readiness,
    publicBaseUrl,
    secret,
    webhookAllowlist: config.webhookAllowlist,
    bodyLimitBytes: config.bodyLimitBytes,
    idempotencyLeaseMs: config.idempotencyLeaseMs,
    idempotencyTtlHours: config.idempotencyTtlHours,
    connectorTimeoutMs: config.connectorTimeoutMs,
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(config.smtpUrl === undefined
      ? {}
      : { mailInvitation: createInvitationMailer({ url: config.smtpUrl, from: config.smtpFrom }) }),
    ...(sandboxProviders === undefined ? {} : { sandboxProviders }),
    health,
    ...(embedded ? { dataDir: config.dataDir } : {}),
    statusSyncDelayMs: config.statusSyncDelayMs,
    // Processing starts at once when a notification is stored (the processor is made below).
    onNotificationStored: () => processor.kick(),
  };
  const modules = composeModules(appDeps);
  const { providerCalls } = modules;
  const processor = notificationProcessor(providerCalls);
  const app = await buildApp(appDeps, modules);

  // `tributary backup` and the operator's store commands (`merchants create`, `keys …`) reach this
  // server through DATA_DIR/admin.sock (docs/backups.md, docs/cli.md): it holds the directory.
  const dataDir = resolve(config.dataDir);
  const adminDeps = {
    store,
    clock,
    secret,
    publicBaseUrl,
    settlement: providerCalls,
  };
  const adminSocket = embedded
    ? await serveAdminSocket(
        dataDir,
        async (request) => {
          if (request.op === 'backup') return takeEmbeddedBackup(store, dataDir, request.path);
          const invocation = adminInvocationOf(request);
          if (invocation === undefined) throw new Error(`unknown command ${JSON.stringify(request.command).slice(0, 80)}`);
          log.info({ command: invocation.command }, 'admin command from the CLI');
          return runAdminCommand(adminDeps, invocation);
        },
        (m) => log.warn(m),
      )
    : undefined;

  const firstStart = embedded && (await countMerchants(store)) === 0;
  const address = await app.listen({ host: config.host, port: config.port });
  const bound = app.server.address();
  if (bound !== null && typeof bound === 'object') runtime.loopback.setPort(bound.port);
  sandboxProviders?.start();
  const lines = [`Tributary is listening on ${address} (${embedded ? `embedded store in ${config.dataDir}` : 'PostgreSQL'}).`];
  lines.push(`API reference: ${address}/docs   OpenAPI: ${address}/openapi.json`);
  if (firstStart) {
    // Shown once, on the terminal of a fresh laptop install only; never with DATABASE_URL.
    const merchants = createMerchantService({ store, clock, secret });
    const created = await merchants.createMerchant('Default merchant', OPERATOR);
    lines.push(
      '',
      `First start: created merchant ${created.merchant.id}. These keys are shown once; keep them:`,
      `  sandbox    ${created.sandbox.secret}`,
      `  production ${created.production.secret}`,
      '',
      `Try: curl -s ${address}/payment/create -H "Authorization: Bearer ${created.sandbox.secret}" \\`,
      `       -H "Content-Type: application/json" -d '{"amount": 150000.00, "currency": "IDR", "reference_no": "order-1", "email": "payer@example.com"}'`,
    );
  } else {
    lines.push(
      'To get an API key, run (works while the server runs): npx tributary merchants create --name "My shop" --json' +
        (embedded ? ' (same DATA_DIR)' : ' (with the same DATABASE_URL and TRIBUTARY_SECRET)'),
    );
  }
  lines.push(...(await firstOwnerLinks({ store, clock, secret, publicBaseUrl })));
  process.stdout.write(`${lines.join('\n')}\n`);

  // The dispatcher runs in every server process with RUN_JOBS (the embedded default); on
  // PostgreSQL, dedicated `npx tributary worker`s may run beside or instead of it.
  const webhooks = config.runJobs ? webhookJobs(config, { store, secret, clock, log }) : undefined;
  const jobs = config.runJobs
    ? startJobs(
        [
          creationCompleterJob({ ...modules.createPayment, abandonAfterMs: config.creationAbandonMs }),
          idempotencyRetentionJob({ store, clock }),
          ...(store.kind === 'embedded' ? [embeddedMaintenanceJob({ store, log })] : []),
          ...(embedded && config.backupDir !== undefined
            ? [
                scheduledBackupJob({
                  store,
                  dataDir,
                  backupDir: config.backupDir,
                  everyMs: config.backupEveryMs,
                  keep: config.backupKeep,
                  clock,
                  log,
                }),
              ]
            : []),
          ...(webhooks === undefined ? [] : [webhooks.retention]),
          processor.job,
          expirySweeperJob(providerCalls),
          checkoutExpiryJob(modules.expireCheckout),
          statusSyncJob({ ...providerCalls, statusSyncDelayMs: config.statusSyncDelayMs, health }),
          settlementIngestJob(providerCalls, config.settlementIngestIntervalMs),
          refundSyncJob({ ...providerCalls, refundSyncDelayMs: REFUND_SYNC_DELAY_MS }),
          overviewRefreshJob({ store, clock }),
          ...(config.payerDataRetentionDays === undefined
            ? []
            : [payerDataRetentionJob({ store, clock, retentionDays: config.payerDataRetentionDays })]),
        ],
        log,
      )
    : { stop: async () => undefined };
  webhooks?.dispatcher.start();

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    readiness.shuttingDown = true;
    // A start meanwhile (a person pressing the up arrow after Ctrl-C) waits for us to finish.
    markDataDirsStopping();
    const deadline = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, 15_000);
    deadline.unref();
    try {
      // Refuse new requests, let running ones finish (they may still call the co-hosted sandbox
      // providers), and only then close the listener.
      if (!(await app.drained(10_000))) log.warn('requests still running after 10 s; closing anyway');
      await app.close();
      await webhooks?.close();
      sandboxProviders?.stop();
      await jobs.stop();
      await adminSocket?.close();
      await rateLimiter?.close();
      await runtime.close();
      // Last: the spans of everything above are exported before the process exits.
      await tracing?.shutdown();
      log.info('stopped');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

try {
  await main(loadConfig());
} catch (error) {
  if (error instanceof ConfigError || error instanceof DataDirInUseError || error instanceof MigrationError) {
    process.stderr.write(`tributary: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}

/**
 * First start of the dashboard (docs/team.md): for each merchant that has no people yet, a one-time
 * set-up link for its first owner (valid 7 days; each start makes a new one while nobody joined).
 */
async function firstOwnerLinks(deps: Parameters<typeof firstOwnerLink>[0]): Promise<string[]> {
  const lines: string[] = [];
  // At most five merchants' links per start (more: `tributary users create`). A function of the
  // module's end, called from main() above: no module-level constant it could read too early.
  for (const merchant of await listMerchants(deps.store, 5)) {
    const made = await firstOwnerLink(deps, merchant.id);
    if (made === undefined) continue;
    lines.push(`Dashboard: ${merchant.name} (${merchant.id}) has no people yet. Its first owner sets up here (once, 7 days):`);
    lines.push(`  ${made.link}`);
  }
  return lines.length === 0 ? [] : ['', ...lines];
}
