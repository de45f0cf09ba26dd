import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { registerJsonBody } from '../../src/http/plugins/json-body.ts';
import { sendRawJson } from '../../src/http/raw-json.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { getKey, type IdempotencyScope } from '../../src/modules/idempotency/idempotency-repo.ts';
import { createMerchantService, OPERATOR } from '../../src/modules/merchants/merchant-service.ts';
import { findPayment } from '../../src/modules/payments/payment-repo.ts';
import { paymentView } from '../../src/modules/payments/payment-view.ts';
import { embeddedMaintenanceJob } from '../../src/jobs/embedded-maintenance.ts';
import { openRuntime } from '../../src/runtime.ts';
import { LatencyRecorder } from '../lib/stats.ts';
import { listenProviderEcho, providerRoundTrip } from './provider-echo.ts';
import { checkoutWritesContext, writeOneCheckout } from './checkout-writes.ts';
import { type CreateWritesContext, sampleInstructions, type WrittenCreate, writeOneCreate } from './create-writes.ts';
import type { Principal } from '../../src/kernel/index.ts';

/**
 * The ceiling process: everything the service is judged against, in a process of its own (like
 * the server under test), on a store of its own configured exactly like the server's (same
 * environment variables, same Store implementation, same pool settings, migrated the same way).
 * Driven over IPC by bench/run.ts:
 *
 *   {type: 'db'}    → runs the create writes (create-writes.ts; with `provider`, each with the
 *                     least a provider round trip costs, provider-echo.ts: to CEILING_PROVIDER_URL,
 *                     a bare route in a process of its own, or else to one served here; kind
 *                     `checkout`: the checkout
 *                     create without HTTP, checkout-writes.ts) from `concurrency` workers for
 *                     `seconds`, no HTTP, and answers ops/s with p50/p99 per create;
 *   {type: 'serve'} → listens on loopback with the bare routes below and answers their URL:
 *     GET  /ceiling/static        a payment-sized JSON body (the HTTP ceiling)
 *     GET  /ceiling/payment/:id   one primary-key select + the payment view (the GET ceiling)
 *     POST /ceiling/replay        JSON body parse + one primary-key select of the idempotency key
 *                                 + the stored bytes (the replay ceiling)
 *     POST /ceiling/create        the create writes and the provider round trip behind a bare route
 *                                 (with GET: the mixed ceiling)
 * The Fastify instance uses the same version and the options of src/app.ts that matter per request
 * (logger at the server's level with request logging off, request ids, body limit, the same JSON
 * body parser, JSON.stringify serialiser).
 */
type Command =
  | {
      type: 'db';
      kind: 'create' | 'checkout';
      seconds: number;
      concurrency: number;
      warmupSeconds: number;
      /** Creates include the least a provider round trip costs (provider-echo.ts). */
      provider?: boolean;
    }
  | { type: 'serve' }
  | { type: 'stop' };

const config = loadConfig();
const log = createLogger(config.logLevel);
const runtime = await openRuntime(config, 'bench-ceiling', log);
const { store } = runtime;
const merchants = createMerchantService({ store, clock: systemClock, secret: runtime.secret });
const created = await merchants.createMerchant('Ceiling merchant', OPERATOR);
const principal: Principal = {
  merchantId: created.merchant.id,
  merchantName: created.merchant.name,
  environment: 'sandbox',
  apiVersion: created.merchant.apiVersion,
  actor: { kind: 'api_key', keyId: created.sandbox.key.id, keyPrefix: created.sandbox.key.displayPrefix },
};
const ctx: CreateWritesContext = {
  store,
  principal,
  publicBaseUrl: 'http://127.0.0.1:8080',
  instructions: sampleInstructions(created.merchant.name),
};
/** A sample of what the DB ceiling wrote: the rows the GET and replay ceilings read. */
const SAMPLE_SIZE = 500;
const written: WrittenCreate[] = [];
let seq = 0;

/** Where the create ceiling's provider round trip goes (provider-echo.ts). */
const providerUrl = process.env['CEILING_PROVIDER_URL'] ?? (await listenProviderEcho()).url;
const withProvider: CreateWritesContext = { ...ctx, providerCall: (n) => providerRoundTrip(providerUrl, n) };

const checkoutCtx = await checkoutWritesContext({ store, connectors: runtime.connectors, log, principal });

async function runWrites(
  kind: 'create' | 'checkout',
  seconds: number,
  concurrency: number,
  record: LatencyRecorder | undefined,
  provider: boolean,
) {
  const deadline = performance.now() + seconds * 1000;
  let ops = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        if (kind === 'checkout') {
          await writeOneCheckout(checkoutCtx, (seq += 1));
        } else {
          const w = await writeOneCreate(provider ? withProvider : ctx, (seq += 1));
          if (written.length < SAMPLE_SIZE) written.push(w);
        }
        record?.record(performance.now() - started);
        ops += 1;
      } catch (error) {
        errors += 1;
        firstError ??= (error as Error).message;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { ops, errors, firstError, seconds: (performance.now() - started) / 1000 };
}

async function serve(): Promise<string> {
  const app = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    bodyLimit: config.bodyLimitBytes,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  });
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  registerJsonBody(app, config.bodyLimitBytes);
  const first = written[0];
  if (first === undefined) throw new Error('serve before the DB ceiling wrote any rows');
  const staticView = JSON.parse(first.body) as unknown;
  app.get('/ceiling/static', async () => staticView);
  app.get<{ Params: { id: string } }>('/ceiling/payment/:id', async (request, reply) => {
    const payment = await findPayment(store, principal.merchantId, principal.environment, request.params.id);
    if (payment === undefined) return reply.code(404).send({ code: 'resource_not_found' });
    return paymentView(payment, ctx.publicBaseUrl);
  });
  app.post('/ceiling/create', async (_request, reply) => {
    const w = await writeOneCreate(withProvider, (seq += 1));
    return sendRawJson(reply, 201, w.body);
  });
  app.post('/ceiling/replay', async (request, reply) => {
    const key = request.headers['idempotency-key'];
    const scope: IdempotencyScope = { ...written[0]!.scope, key: typeof key === 'string' ? key : '' };
    const record = await getKey(store, scope);
    if (record?.status !== 'finished') return reply.code(404).send({ code: 'resource_not_found' });
    reply.header('Idempotent-Replayed', 'true');
    return sendRawJson(reply, record.responseStatus, record.responseBody);
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

const send = (message: unknown) => process.send?.(message);

process.on('message', (message: Command) => {
  void (async () => {
    try {
      if (message.type === 'db') {
        const provider = message.provider === true;
        if (message.warmupSeconds > 0) {
          await runWrites(message.kind, message.warmupSeconds, message.concurrency, undefined, provider);
        }
        const latencies = new LatencyRecorder();
        const result = await runWrites(message.kind, message.seconds, message.concurrency, latencies, provider);
        send({ type: 'db', ...result, ...latencies.summary() });
      } else if (message.type === 'serve') {
        // The reads below run on what the writes left, maintained as the server's store is: on the
        // embedded store its maintenance job analyses the tables that changed within a minute
        // (without it a GET by id walks the merchant's index: docs/benchmarks.md, issue 27, third
        // session); on PostgreSQL bench/run.ts's settleAfterWrites analyses both databases.
        if (store.kind === 'embedded') await embeddedMaintenanceJob({ store }).run();
        const url = await serve();
        send({
          type: 'serving',
          url,
          paymentIds: written.map((w) => w.paymentId),
          keys: written.map((w) => w.scope.key),
        });
      } else {
        await runtime.close();
        process.exit(0);
      }
    } catch (error) {
      send({ type: 'error', message: (error as Error).stack ?? String(error) });
    }
  })();
});
process.on('disconnect', () => {
  void runtime.close().finally(() => process.exit(0));
});
send({ type: 'ready', merchantId: principal.merchantId });
