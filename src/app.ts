import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ConnectorRegistry } from './connectors/core/registry.ts';
import type { Store } from './db/store.ts';
import { registerAuth } from './http/plugins/auth.ts';
import { registerErrorHandling } from './http/plugins/errors.ts';
import { registerDrain } from './http/plugins/drain.ts';
import { registerJsonBody } from './http/plugins/json-body.ts';
import { registerMetrics } from './http/plugins/metrics.ts';
import { registerRateLimit } from './http/plugins/rate-limit.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { registerCreatePayment } from './http/routes/payment/create-payment.route.ts';
import { registerGetPayment } from './http/routes/payment/get-payment.route.ts';
import { registerListPayments } from './http/routes/payment/list-payments.route.ts';
import { registerGetBalance } from './http/routes/balance/get-balance.route.ts';
import { registerCreateRefund } from './http/routes/refund/create-refund.route.ts';
import { registerGetRefund } from './http/routes/refund/get-refund.route.ts';
import { registerListPaymentMethods } from './http/routes/payment-method/list-payment-methods.route.ts';
import { registerPayPage } from './http/routes/pay/get-pay-page.route.ts';
import { registerPayStatus } from './http/routes/pay/get-pay-status.route.ts';
import { registerChannelRoutes } from './http/routes/channel-routes.ts';
import { registerDashboard } from './http/dashboard/dashboard-routes.ts';
import { type Readiness, registerHealth } from './http/routes/ops/health.route.ts';
import { registerReference } from './http/routes/ops/reference.route.ts';
import { addMoneySchemas, registerMoneyRoutes } from './http/routes/register-money-routes.ts';
import { addWebhookSchemas, registerWebhookRoutes } from './http/routes/register-webhook-routes.ts';
import { ErrorBodySchema } from './http/schemas/error.schema.ts';
import { PaymentSchema } from './http/schemas/payment.schema.ts';
import { PaymentListSchema } from './http/schemas/payment-list.schema.ts';
import { PaymentMethodListSchema, PaymentMethodSchema } from './http/schemas/payment-method.schema.ts';
import { BalanceSchema, RefundSchema } from './http/schemas/refund.schema.ts';
import { REFUND_SYNC_DELAY_MS } from './jobs/refund-sync.ts';
import { openapiWebhooks } from './http/schemas/webhook.schema.ts';
import { validatorCompiler } from './http/validation.ts';
import type { Clock } from './lib/clock.ts';
import type { Failpoints } from './lib/failpoints.ts';
import { newId } from './lib/ids.ts';
import type { Logger } from './lib/logger.ts';
import { Allowlist } from './lib/net/address-policy.ts';
import { createSecretBox } from './lib/secret-box.ts';
import type { Authenticator } from './modules/merchants/authenticator.ts';
import type { RateLimiter } from './modules/rate-limits/rate-limiter.ts';
import { CURRENT_API_VERSION } from './modules/merchants/merchant-service.ts';
import { SECRET_BOX_PURPOSE } from './modules/webhooks/webhook-secrets.ts';
import type { ConnectorHealthTracker } from './modules/routing/connector-health.ts';
import { SANDBOX_PROVIDERS_PREFIX, type SandboxProviders } from './sandbox/sandbox-providers.ts';

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
  /** The sandbox providers, when they run inside this process (the embedded default). */
  sandboxProviders?: SandboxProviders;
  health?: ConnectorHealthTracker;
  statusSyncDelayMs?: number;
  /** First re-send of a refund the provider left pending (default REFUND_SYNC_DELAY_MS). */
  refundSyncDelayMs?: number;
  /** Called when a provider notification was stored (main.ts starts processing at once). */
  onNotificationStored?: () => void;
}

/**
 * Builds the HTTP application without listening, so tests drive it with `inject()` and main.ts
 * decides where it listens.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    bodyLimit: deps.bodyLimitBytes,
    // One access line per request at debug (LOG_LEVEL=debug); Fastify's own pair of lines is off.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    ajv: { customOptions: { strict: false } },
  });
  app.setValidatorCompiler(validatorCompiler);
  // Handlers build exact views; JSON.stringify serialises them (response schemas document them).
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  // Shutdown refuses new API requests but lets running ones finish (see http/plugins/drain.ts); the
  // co-hosted sandbox providers keep answering them meanwhile.
  const drained = registerDrain(app, deps.readiness, { exempt: (url) => url.startsWith(SANDBOX_PROVIDERS_PREFIX) });
  app.decorate('drained', drained);
  const accessLog = deps.log.isLevelEnabled('debug');
  app.addHook('onResponse', async (request, reply) => {
    if (accessLog) {
      request.log.debug(
        {
          method: request.method,
          route: request.routeOptions.url,
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime),
        },
        'request',
      );
    }
  });
  app.addHook('onRoute', (route) => {
    // Swagger UI's own routes are part of the public reference.
    if (route.url.startsWith('/docs')) route.config = { ...(route.config as object), public: true };
  });

  registerErrorHandling(app);
  registerJsonBody(app, deps.bodyLimitBytes);
  registerAuth(app, deps.authenticator);
  if (deps.rateLimiter !== undefined) registerRateLimit(app, deps.rateLimiter);
  registerMetrics(app);

  app.addSchema(ErrorBodySchema);
  app.addSchema(PaymentSchema);
  app.addSchema(PaymentListSchema);
  app.addSchema(PaymentMethodSchema);
  app.addSchema(PaymentMethodListSchema);
  app.addSchema(RefundSchema);
  app.addSchema(BalanceSchema);
  addWebhookSchemas(app);
  addMoneySchemas(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tributary payment API',
        version: CURRENT_API_VERSION,
        description:
          'One integration for bank virtual accounts, e-wallets and over-the-counter payments. Paths are unversioned; send `Api-Version` to pick a dated version. Every error has the body `{code, message, details, request_id}`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: '`sk_test_…` (sandbox) or `sk_live_…` (production).' },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    // OpenAPI 3.1 `webhooks`: one entry per event type, generated from the event catalogue.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const doc = documentObject.openapiObject;
      return { ...doc, webhooks: openapiWebhooks((doc.components?.schemas ?? {}) as Record<string, unknown>) } as typeof doc;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  const allowlist = new Allowlist(deps.webhookAllowlist);
  const routeDeps: RouteDeps = {
    store: deps.store,
    clock: deps.clock,
    allowlist,
    publicBaseUrl: deps.publicBaseUrl,
    createPayment: {
      store: deps.store,
      connectors: deps.connectors,
      clock: deps.clock,
      failpoints: deps.failpoints,
      log: deps.log,
      publicBaseUrl: deps.publicBaseUrl,
      idempotencyLeaseMs: deps.idempotencyLeaseMs,
      idempotencyTtlMs: deps.idempotencyTtlHours * 3_600_000,
      connectorTimeoutMs: deps.connectorTimeoutMs,
      ...(deps.health === undefined ? {} : { health: deps.health }),
      ...(deps.statusSyncDelayMs === undefined ? {} : { statusSyncDelayMs: deps.statusSyncDelayMs }),
    },
    connectors: deps.connectors,
    webhooks: {
      store: deps.store,
      clock: deps.clock,
      secretBox: createSecretBox(deps.secret, SECRET_BOX_PURPOSE),
      allowlist,
    },
  };
  registerHealth(app, { store: deps.store, readiness: deps.readiness });
  registerReference(app);
  registerCreatePayment(app, routeDeps);
  registerGetPayment(app, routeDeps);
  registerListPayments(app, routeDeps);
  registerListPaymentMethods(app, routeDeps);
  registerPayPage(app, routeDeps);
  registerPayStatus(app, routeDeps);
  registerWebhookRoutes(app, routeDeps);
  const lifecycle = { store: deps.store, clock: deps.clock, log: deps.log, publicBaseUrl: deps.publicBaseUrl };
  const keyedProviderCalls = {
    ...lifecycle,
    connectors: deps.connectors,
    connectorTimeoutMs: deps.connectorTimeoutMs,
    idempotencyLeaseMs: deps.idempotencyLeaseMs,
    idempotencyTtlMs: deps.idempotencyTtlHours * 3_600_000,
  };
  registerMoneyRoutes(app, { ...routeDeps, reconcile: keyedProviderCalls });
  const refundDeps = {
    ...keyedProviderCalls,
    failpoints: deps.failpoints,
    refundSyncDelayMs: deps.refundSyncDelayMs ?? REFUND_SYNC_DELAY_MS,
  };
  registerCreateRefund(app, { refund: refundDeps });
  registerGetRefund(app, routeDeps);
  registerGetBalance(app, routeDeps);
  // The merchant dashboard (docs/dashboard.md): session-authenticated pages over the same modules.
  await registerDashboard(app, {
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    secret: deps.secret,
    publicBaseUrl: deps.publicBaseUrl,
    connectors: deps.connectors,
    refund: refundDeps,
    reconcile: keyedProviderCalls,
    ...(deps.rateLimiter === undefined ? {} : { rateLimiter: deps.rateLimiter }),
  });
  await registerChannelRoutes(app, {
    cancelPayment: {
      ...lifecycle,
      connectors: deps.connectors,
      connectorTimeoutMs: deps.connectorTimeoutMs,
      idempotencyLeaseMs: deps.idempotencyLeaseMs,
      idempotencyTtlMs: deps.idempotencyTtlHours * 3_600_000,
    },
    simulate: { ...lifecycle, connectors: deps.connectors, connectorTimeoutMs: deps.connectorTimeoutMs },
    receive: { store: deps.store, clock: deps.clock, connectors: deps.connectors, log: deps.log },
    ...(deps.onNotificationStored === undefined ? {} : { onNotificationStored: deps.onNotificationStored }),
    ...(deps.sandboxProviders === undefined ? {} : { sandboxProviders: deps.sandboxProviders }),
  });
  await app.ready();
  return app;
}
