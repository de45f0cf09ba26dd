import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Connector } from '../../src/connectors/core/connector.ts';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import type { SandboxConnectorOptions } from '../../src/connectors/core/sandbox-wire.ts';
import { sweepExpired } from '../../src/jobs/expiry-sweeper.ts';
import { type IngestSummary, ingestSettlements } from '../../src/modules/settlement/settlement-ingest.ts';
import { REFUND_SYNC_DELAY_MS, syncDueRefunds } from '../../src/jobs/refund-sync.ts';
import { syncDueAttempts } from '../../src/jobs/status-sync.ts';
import { type Clock, ManualClock } from '../../src/lib/clock.ts';
import { type Failpoints, noFailpoints } from '../../src/lib/failpoints.ts';
import { createLogger, type Logger } from '../../src/lib/logger.ts';
import { createAuthenticator } from '../../src/modules/merchants/authenticator.ts';
import { createMerchantService, type KeyManager, type MerchantService } from '../../src/modules/merchants/merchant-service.ts';
import { processDueNotifications } from '../../src/modules/notifications/process-notifications.ts';
import type { CreatePaymentDeps } from '../../src/modules/payments/create-payment.ts';
import type { RateLimiter } from '../../src/modules/rate-limits/rate-limiter.ts';
import { ConnectorHealthTracker } from '../../src/modules/routing/connector-health.ts';
import { builtInConnectors } from '../../src/runtime.ts';
import type { SandboxProvider } from '../../src/sandbox/sandbox-provider.ts';
import { createSandboxProviders, SANDBOX_PROVIDERS_PREFIX, type SandboxProviders } from '../../src/sandbox/sandbox-providers.ts';
import { openTestStore, type TestStore } from './test-store.ts';
import { takeContractViolations, tapContract } from './contract-tap.ts';
import { completeCheckoutOfPayment } from '../../src/modules/checkouts/index.ts';
import type { LifecycleDeps } from '../../src/kernel/index.ts';

/** The operator the tests act as when they manage merchants and keys directly (the audit log's actor). */
export const TEST_OPERATOR: KeyManager = { actor: { kind: 'operator', name: 'test' } };

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0001';
export const PUBLIC_BASE_URL = 'http://127.0.0.1:8080';
export const STATUS_SYNC_DELAY_MS = 5 * 60_000;
/** Bounds every "until nothing is left" loop in the harness. */
const MAX_ROUNDS = 20;

export interface TestMerchant {
  id: string;
  sandboxKey: string;
  productionKey: string;
}

export interface TestApp {
  app: FastifyInstance;
  testStore: TestStore;
  clock: Clock;
  merchants: MerchantService;
  /** Two merchants, so every test can check tenant isolation. */
  a: TestMerchant;
  b: TestMerchant;
  createDeps: CreatePaymentDeps;
  /** The sandbox providers, served by this app on loopback HTTP (notifications are sent on demand). */
  providers: SandboxProviders;
  connectors: ConnectorRegistry;
  health: ConnectorHealthTracker;
  /** Where the app listens on loopback (the connectors and the providers talk over it). */
  baseUrl: string;
  /** Sends the providers' due notifications and processes them, until nothing is left (bounded). */
  deliverNotifications(): Promise<{ sent: number; processed: number }>;
  /** The sandbox provider behind a connector (tests set its faults, or make it act). */
  provider(connector: 'sandbox_bank' | 'sandbox_ewallet' | 'sandbox_counter'): SandboxProvider;
  /** GET /payment/{id} as merchant A (sandbox), parsed. */
  payment(id: unknown): Promise<Record<string, unknown>>;
  /**
   * A bank payment the payer paid in full (created with `key`, default merchant A's sandbox key,
   * simulated `succeeded`, notification processed), with the provider's charge id, which settlement
   * report faults name.
   */
  paidBankPayment(key?: string): Promise<{ id: string; charge: string }>;
  /** The payment's events in version order, as `type@version` / as types only. */
  eventTrail(id: unknown): Promise<string[]>;
  eventTypes(id: unknown): Promise<string[]>;
  /** Runs the expiry sweeper / status sync once, as the jobs do. */
  sweepExpired(): Promise<number>;
  syncStatuses(): Promise<number>;
  /** Runs the settlement ingestion once, as its job does (all settling connectors, or one). */
  ingestSettlements(connector?: string): Promise<IngestSummary>;
  /** Runs the refund sync job once (refunds due by the app's clock). */
  syncRefunds(): Promise<number>;
  call(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: Clock;
  /** Replaces the built-in connectors. */
  connectors?: Connector[];
  /** Adds connectors after the built-in ones (e.g. a scripted one to fail over from or to). */
  extraConnectors?: Connector[];
  productionConnectors?: string[];
  failpoints?: Failpoints;
  idempotencyLeaseMs?: number;
  connectorTimeoutMs?: number;
  /** HTTP settings of the built-in connectors (retries, per-try timeout). */
  connectorHttp?: SandboxConnectorOptions['http'];
  webhookAllowlist?: string[];
  authCacheTtlMs?: number;
  testStore?: TestStore;
  rateLimiter?: RateLimiter;
  /** The sandbox providers' settlement schedule (default: theirs, T+1 day; null: on demand only). */
  settlementDelayMs?: number | null;
  /** The app's logger (default: silent, or TEST_LOG_LEVEL): a test that reads the log lines passes its own. */
  log?: Logger;
  /** PUBLIC_BASE_URL (default http://127.0.0.1:8080); an https one makes the dashboard cookie Secure. */
  publicBaseUrl?: string;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testStore = options.testStore ?? (await openTestStore());
  const { store } = testStore;
  const clock = options.clock ?? new ManualClock(new Date());
  const log = options.log ?? createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent');
  let baseUrl = '';
  // The providers run inside the app, on loopback, like the embedded default; notifications go out
  // only when a test calls deliverNotifications(), so no test waits on a timer.
  const providers = createSandboxProviders({
    clock,
    masterSecret: TEST_SECRET,
    callbackBaseUrl: () => baseUrl,
    log,
    autoDispatch: false,
    ...(options.settlementDelayMs === undefined ? {} : { settlementDelayMs: options.settlementDelayMs }),
  });
  const connectorList = options.connectors ?? [
    ...builtInConnectors({
      sandboxBaseUrl: () => `${baseUrl}${SANDBOX_PROVIDERS_PREFIX}`,
      sandboxSecret: TEST_SECRET,
      log,
      http: { retryBackoffMs: 0, perTryTimeoutMs: 2_500, ...options.connectorHttp },
    }),
    ...(options.extraConnectors ?? []),
  ];
  const connectors = new ConnectorRegistry(
    connectorList,
    options.productionConnectors ?? connectorList.map((c) => c.capabilities.connector),
  );
  const health = new ConnectorHealthTracker();
  const readiness = { shuttingDown: false };
  const common = {
    idempotencyLeaseMs: options.idempotencyLeaseMs ?? 60_000,
    // Generous: a loaded machine must not turn a slow loopback answer into a failover.
    connectorTimeoutMs: options.connectorTimeoutMs ?? 5_000,
  };
  const failpoints = options.failpoints ?? noFailpoints;
  const app = await buildApp({
    store,
    clock,
    connectors,
    authenticator: createAuthenticator({ store, clock, secret: TEST_SECRET, cacheTtlMs: options.authCacheTtlMs ?? 0 }),
    failpoints,
    log,
    readiness,
    publicBaseUrl: options.publicBaseUrl ?? PUBLIC_BASE_URL,
    secret: TEST_SECRET,
    webhookAllowlist: options.webhookAllowlist ?? [],
    bodyLimitBytes: 64 * 1024,
    idempotencyTtlHours: 24,
    sandboxProviders: providers,
    health,
    statusSyncDelayMs: STATUS_SYNC_DELAY_MS,
    ...common,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('test app is not listening on TCP');
  baseUrl = `http://127.0.0.1:${address.port}`;
  // Every answer this app gives a test is checked against /openapi.json (contract-tap.ts).
  tapContract(app);

  const merchants = createMerchantService({ store, clock, secret: TEST_SECRET });
  const make = async (name: string): Promise<TestMerchant> => {
    const m = await merchants.createMerchant(name, TEST_OPERATOR);
    return { id: m.merchant.id, sandboxKey: m.sandbox.secret, productionKey: m.production.secret };
  };
  const a = await make('Merchant A');
  const b = await make('Merchant B');
  const lifecycle = {
    store,
    clock,
    log,
    publicBaseUrl: PUBLIC_BASE_URL,
    // As composition.ts wires it: a checkout's payment that succeeds completes the checkout.
    paymentSucceeded: ((tx, payment, now) =>
      completeCheckoutOfPayment(tx, PUBLIC_BASE_URL, payment, now)) satisfies LifecycleDeps['paymentSucceeded'],
    connectors,
    connectorTimeoutMs: common.connectorTimeoutMs,
  };
  return {
    app,
    testStore,
    clock,
    merchants,
    a,
    b,
    providers,
    connectors,
    health,
    baseUrl,
    createDeps: {
      store,
      connectors,
      clock,
      failpoints,
      log,
      publicBaseUrl: PUBLIC_BASE_URL,
      idempotencyTtlMs: 24 * 3_600_000,
      health,
      statusSyncDelayMs: STATUS_SYNC_DELAY_MS,
      ...common,
    },
    async deliverNotifications() {
      let sent = 0;
      let processed = 0;
      for (let round = 0; round < MAX_ROUNDS; round += 1) {
        const s = await providers.dispatchDue();
        const p = await processDueNotifications(lifecycle, 100);
        sent += s;
        processed += p;
        if (s === 0 && p === 0) break;
      }
      return { sent, processed };
    },
    provider(connector) {
      const provider = providers.byConnector(connector);
      assert.ok(provider, `no sandbox provider for ${connector}`);
      return provider;
    },
    async payment(id) {
      return json(
        await app.inject({ method: 'GET', url: `/payment/${String(id)}`, headers: { authorization: `Bearer ${a.sandboxKey}` } }),
      );
    },
    async paidBankPayment(this: TestApp, key?: string) {
      const k = key === undefined ? {} : { key };
      const created = await this.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }), ...k });
      assert.equal(created.statusCode, 201, created.body);
      const id = json(created)['id'] as string;
      const paid = await this.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' }, ...k });
      assert.equal(paid.statusCode, 202, paid.body);
      await this.deliverNotifications();
      const [attempt] = await store.query<{ provider_reference: string }>(
        'SELECT provider_reference FROM payment_attempts WHERE payment_id = $1',
        [id],
      );
      assert.ok(attempt !== undefined, `no attempt for ${id}`);
      return { id, charge: attempt.provider_reference };
    },
    async eventTrail(id) {
      const rows = await store.query<{ type: string; object_version: number }>(
        'SELECT type, object_version FROM events WHERE object_id = $1 ORDER BY object_version',
        [id],
      );
      return rows.map((e) => `${e.type}@${e.object_version}`);
    },
    async eventTypes(id) {
      const rows = await store.query<{ type: string }>('SELECT type FROM events WHERE object_id = $1 ORDER BY object_version', [
        id,
      ]);
      return rows.map((e) => e.type);
    },
    sweepExpired: () => sweepExpired(lifecycle, 100),
    syncStatuses: () => syncDueAttempts({ ...lifecycle, statusSyncDelayMs: STATUS_SYNC_DELAY_MS, health }, 100),
    ingestSettlements: (connector) => ingestSettlements(lifecycle, connector),
    syncRefunds: () => syncDueRefunds({ ...lifecycle, refundSyncDelayMs: REFUND_SYNC_DELAY_MS }, 100),
    async call(method, url, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const key = opts.key === undefined ? a.sandboxKey : opts.key;
      if (key !== null) headers['authorization'] ??= `Bearer ${key}`;
      const inject: InjectOptions = { method, url, headers };
      if (opts.rawBody !== undefined) {
        headers['content-type'] ??= 'application/json';
        inject.payload = opts.rawBody;
      } else if (opts.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        inject.payload = JSON.stringify(opts.body);
      }
      return app.inject(inject);
    },
    async close() {
      await app.close();
      if (options.testStore === undefined) await testStore.close();
      const late = takeContractViolations();
      assert.deepEqual(late, [], `answers the OpenAPI document does not describe:\n${late.join('\n')}`);
    },
  };
}

/** The start time of suites that use appForSuite (any fixed instant works; tests move the clock). */
export const SUITE_START = new Date('2026-11-21T10:00:00Z');

/**
 * One app per `describe` block, with its own ManualClock: created before the block's tests,
 * closed after them. Read `ctx.t` and `ctx.clock` inside tests.
 */
export function appForSuite(options: Omit<TestAppOptions, 'clock'> = {}): { readonly t: TestApp; readonly clock: ManualClock } {
  const ctx = {} as { t: TestApp; clock: ManualClock };
  before(async () => {
    ctx.clock = new ManualClock(SUITE_START);
    ctx.t = await createTestApp({ ...options, clock: ctx.clock });
  });
  after(() => ctx.t.close());
  return ctx;
}

let counter = 0;
/** A unique reference_no per call, so tests never collide by accident. */
export function ref(prefix = 'order'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

/** The quick-start body of the published interface, with a fresh reference_no. */
export function quickStart(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 150000.0, currency: 'IDR', reference_no: ref(), email: 'payer@example.com', ...overrides };
}

export function json(response: LightMyRequestResponse): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}
