import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Connector } from '../../src/connectors/core/connector.ts';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import { type Clock, ManualClock } from '../../src/lib/clock.ts';
import { type Failpoints, noFailpoints } from '../../src/lib/failpoints.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { createAuthenticator } from '../../src/modules/merchants/authenticator.ts';
import { createMerchantService, type MerchantService } from '../../src/modules/merchants/merchant-service.ts';
import type { CreatePaymentDeps } from '../../src/modules/payments/create-payment.ts';
import type { RateLimiter } from '../../src/modules/rate-limits/rate-limiter.ts';
import { builtInConnectors } from '../../src/runtime.ts';
import { openTestStore, type TestStore } from './test-store.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0001';
export const PUBLIC_BASE_URL = 'http://127.0.0.1:8080';

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
  productionConnectors?: string[];
  failpoints?: Failpoints;
  idempotencyLeaseMs?: number;
  connectorTimeoutMs?: number;
  webhookAllowlist?: string[];
  authCacheTtlMs?: number;
  testStore?: TestStore;
  rateLimiter?: RateLimiter;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testStore = options.testStore ?? (await openTestStore());
  const { store } = testStore;
  const clock = options.clock ?? new ManualClock(new Date());
  const log = createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent');
  const connectorList = options.connectors ?? builtInConnectors();
  const connectors = new ConnectorRegistry(
    connectorList,
    options.productionConnectors ?? connectorList.map((c) => c.capabilities.connector),
  );
  const readiness = { shuttingDown: false };
  const common = {
    idempotencyLeaseMs: options.idempotencyLeaseMs ?? 60_000,
    connectorTimeoutMs: options.connectorTimeoutMs ?? 2_000,
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
    publicBaseUrl: PUBLIC_BASE_URL,
    secret: TEST_SECRET,
    webhookAllowlist: options.webhookAllowlist ?? [],
    bodyLimitBytes: 64 * 1024,
    idempotencyTtlHours: 24,
    ...common,
    ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }),
  });
  const merchants = createMerchantService({ store, clock, secret: TEST_SECRET });
  const make = async (name: string): Promise<TestMerchant> => {
    const m = await merchants.createMerchant(name);
    return { id: m.merchant.id, sandboxKey: m.sandbox.secret, productionKey: m.production.secret };
  };
  const a = await make('Merchant A');
  const b = await make('Merchant B');
  return {
    app,
    testStore,
    clock,
    merchants,
    a,
    b,
    createDeps: {
      store,
      connectors,
      clock,
      failpoints,
      log,
      publicBaseUrl: PUBLIC_BASE_URL,
      idempotencyTtlMs: 24 * 3_600_000,
      ...common,
    },
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
    },
  };
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
