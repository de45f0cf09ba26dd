import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { registerAuth } from './http/plugins/auth.ts';
import { frameworkErrors, registerErrorHandling } from './http/plugins/errors.ts';
import { registerDrain } from './http/plugins/drain.ts';
import { registerJsonBody } from './http/plugins/json-body.ts';
import { registerMetrics } from './http/plugins/metrics.ts';
import { registerRateLimit } from './http/plugins/rate-limit.ts';
import { registerTracing } from './http/plugins/tracing.ts';
import { registerDashboard } from './http/dashboard/index.ts';
import { openapiWebhooks } from './http/schemas/webhook.schema.ts';
import { validatorCompiler } from './http/validation.ts';
import { newId } from './lib/ids.ts';
import { CURRENT_API_VERSION } from './modules/merchants/merchant-service.ts';
import { SANDBOX_PROVIDERS_PREFIX } from './sandbox/sandbox-providers.ts';
import { type AppDeps, composeModules } from './composition.ts';
import type { RouteDeps } from './http/route-deps.ts';
import { registerApiRoutes, registerOperationsRoutes } from './http/routes/index.ts';
import { trackDocumentConventions } from './http/openapi-conventions.ts';
import { addOperationLinks } from './http/openapi-links.ts';
import { addSharedSchemas } from './http/schemas/index.ts';

export type { AppDeps } from './composition.ts';

/**
 * Builds the HTTP application without listening, so tests drive it with `inject()` and main.ts
 * decides where it listens. `modules`: the module wiring when the caller composed it already
 * (main.ts shares it with the jobs); otherwise it is composed here.
 */
export async function buildApp(deps: AppDeps, modules?: RouteDeps): Promise<FastifyInstance> {
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
    // The router's own refusals (a too-long path parameter, a malformed escape) in our error body.
    frameworkErrors,
  });
  // First of all hooks, so that everything after it runs inside the request's span (tracing on only).
  registerTracing(app);
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

  registerErrorHandling(app, deps.bodyLimitBytes);
  const conventions = trackDocumentConventions(app);
  registerJsonBody(app, deps.bodyLimitBytes);
  registerAuth(app, deps.authenticator);
  if (deps.rateLimiter !== undefined) registerRateLimit(app, deps.rateLimiter);
  registerMetrics(app, {
    store: deps.store,
    clock: deps.clock,
    connectors: deps.connectors,
    log: deps.log,
    ...(deps.health === undefined ? {} : { health: deps.health }),
    ...(deps.dataDir === undefined ? {} : { dataDir: deps.dataDir }),
  });

  addSharedSchemas(app);
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
      const doc = addOperationLinks(conventions.apply(documentObject.openapiObject));
      return { ...doc, webhooks: openapiWebhooks((doc.components?.schemas ?? {}) as Record<string, unknown>) } as typeof doc;
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json['$id'] === 'string' ? json['$id'] : `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  const routeDeps = modules ?? composeModules(deps);
  registerOperationsRoutes(app, { store: deps.store, readiness: deps.readiness });
  await registerApiRoutes(app, routeDeps);
  // The merchant dashboard (docs/dashboard.md): session-authenticated pages over the same modules.
  await registerDashboard(app, {
    store: deps.store,
    clock: deps.clock,
    log: deps.log,
    secret: deps.secret,
    publicBaseUrl: deps.publicBaseUrl,
    connectors: deps.connectors,
    refund: routeDeps.refund,
    cancelPayment: routeDeps.cancelPayment,
    reconcile: routeDeps.reconcile,
    expireCheckout: routeDeps.expireCheckout,
    paymentLinks: routeDeps.paymentLinks,
    ...(deps.rateLimiter === undefined ? {} : { rateLimiter: deps.rateLimiter }),
    ...(deps.mailInvitation === undefined ? {} : { mailInvitation: deps.mailInvitation }),
  });
  await app.ready();
  return app;
}
