import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { bankDialect } from './bank-provider.ts';
import { counterDialect } from './counter-provider.ts';
import { ewalletDialect } from './ewallet-provider.ts';
import type { FaultSpec, SimulateAction } from './charge-book.ts';
import type { NotificationFault } from './notification-outbox.ts';
import type { RefundFault } from './refund-book.ts';
import { type Faults, SandboxProvider } from './sandbox-provider.ts';
import type { ProviderReply } from './sandbox-types.ts';
import { SETTLEMENT_REPORT_FAULT_KINDS, type SettlementReportFault } from './settlement-reports.ts';
import { parseDate, parseMinor } from './wire-format.ts';
import { sandboxCredentials } from './sandbox-secrets.ts';

/**
 * The three sandbox providers and their HTTP face. In the embedded default they are mounted on
 * Tributary's own server under SANDBOX_PROVIDERS_PREFIX; `npm run sandbox:providers` runs them as
 * their own process (src/sandbox/providers-main.ts). Either way Tributary's connectors reach them
 * only over HTTP, with the provider's API key, and they notify Tributary over HTTP with a
 * signature. The routes are the providers' API, not Tributary's: they are hidden from the OpenAPI
 * document and answer errors in the providers' own format (`{error_code, message}`).
 */
export const SANDBOX_PROVIDERS_PREFIX = '/_sandbox/providers';

export interface SandboxProviders {
  readonly all: readonly SandboxProvider[];
  byConnector(connector: string): SandboxProvider | undefined;
  /** The providers' own expiry of open charges. */
  tick(): number;
  /** Sends every notification that is due; tests call it instead of waiting. */
  dispatchDue(): Promise<number>;
  /** Background expiry and notification retries (not used by tests). */
  start(intervalMs?: number): void;
  stop(): void;
}

export interface SandboxProvidersOptions {
  clock: Clock;
  masterSecret: string;
  callbackBaseUrl: () => string;
  log: Logger;
  autoDispatch: boolean;
  fetchImpl?: typeof fetch;
  /** The providers' settlement schedule (see ProviderOptions.settlementDelayMs). */
  settlementDelayMs?: number | null;
}

export function createSandboxProviders(options: SandboxProvidersOptions): SandboxProviders {
  const all = [bankDialect, ewalletDialect, counterDialect].map((dialect) => {
    const credentials = sandboxCredentials(options.masterSecret, dialect.connector);
    return new SandboxProvider(dialect, {
      clock: options.clock,
      apiKey: credentials.apiKey,
      webhookSecret: credentials.webhookSecret,
      callbackBaseUrl: options.callbackBaseUrl,
      log: options.log,
      autoDispatch: options.autoDispatch,
      ...(options.fetchImpl === undefined ? {} : { fetchImpl: options.fetchImpl }),
      ...(options.settlementDelayMs === undefined ? {} : { settlementDelayMs: options.settlementDelayMs }),
    });
  });
  let timer: NodeJS.Timeout | undefined;
  const providers: SandboxProviders = {
    all,
    byConnector: (connector) => all.find((p) => p.dialect.connector === connector),
    tick: () => all.reduce((n, p) => n + p.tick(), 0),
    async dispatchDue() {
      let sent = 0;
      for (const p of all) sent += await p.dispatchDue();
      return sent;
    },
    start(intervalMs = 1_000) {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        providers.tick();
        void providers.dispatchDue();
      }, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
    },
  };
  return providers;
}

/** The longest a simulated hang holds a response, so a forgotten fault never pins a socket forever. */
const MAX_HOLD_MS = 120_000;

async function send(request: FastifyRequest, reply: FastifyReply, out: ProviderReply): Promise<FastifyReply> {
  if (out.holdMs !== undefined) {
    const holdMs = out.holdMs === null ? MAX_HOLD_MS : Math.min(out.holdMs, MAX_HOLD_MS);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, holdMs);
      // A hang ends when the caller gives up (its timeout closes the connection).
      request.raw.socket?.once('close', done);
      void out.holdUntil?.then(done, done);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
  return reply
    .code(out.status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(out.body) as never);
}

const bearer = (request: FastifyRequest) => /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
const header = (request: FastifyRequest, name: string) => {
  const v = request.headers[name];
  return typeof v === 'string' ? v : undefined;
};

const ROUTE = { config: { public: true }, schema: { hide: true } } as const;

export async function registerSandboxProviderRoutes(
  app: FastifyInstance,
  providers: SandboxProviders,
  prefix: string = SANDBOX_PROVIDERS_PREFIX,
): Promise<void> {
  await app.register(
    async (scope) => {
      for (const provider of providers.all) {
        const d = provider.dialect;
        const guard = async (request: FastifyRequest, reply: FastifyReply) => {
          if (bearer(request) !== provider.apiKey) {
            return reply.code(401).send({ error_code: 'UNAUTHORIZED', message: 'invalid API key' } as never);
          }
          return undefined;
        };
        const opts = { ...ROUTE, preHandler: guard };
        scope.post(d.chargesPath, opts, (request, reply) =>
          send(request, reply, provider.create(header(request, 'idempotency-key'), request.body)),
        );
        scope.get<{ Params: { id: string } }>(`${d.chargesPath}/:id`, opts, (request, reply) =>
          send(request, reply, provider.get(request.params.id)),
        );
        scope.post<{ Params: { id: string } }>(`${d.chargesPath}/:id/${d.closeVerb}`, opts, (request, reply) =>
          send(request, reply, provider.close(request.params.id)),
        );
        scope.post<{ Params: { id: string } }>(`${d.chargesPath}/:id/simulate`, opts, (request, reply) => {
          const b = (request.body ?? {}) as Record<string, unknown>;
          const action = b['action'];
          const amount = b['amount_minor'] === undefined ? undefined : parseMinor(b['amount_minor']);
          if (!isAction(action) || (b['amount_minor'] !== undefined && amount === undefined)) {
            return send(request, reply, {
              status: 400,
              body: {
                error_code: 'INVALID_REQUEST',
                message: 'action is pay|fail|expire|reverse|settle; amount_minor an integer string',
              },
            });
          }
          return send(request, reply, provider.simulate(request.params.id, action, amount));
        });
        scope.post(d.refundsPath, opts, (request, reply) =>
          send(request, reply, provider.refund(header(request, 'idempotency-key'), request.body)),
        );
        scope.get<{ Querystring: { from?: string; to?: string } }>(d.settlementsPath, opts, (request, reply) => {
          const from = parseDate(request.query.from);
          const to = parseDate(request.query.to);
          if (from === undefined || to === undefined) {
            return send(request, reply, {
              status: 400,
              body: { error_code: 'INVALID_REQUEST', message: 'from and to are required' },
            });
          }
          return send(request, reply, provider.settlements(from, to));
        });
      }

      // The sandbox's control panel: faults on demand, and a way to push notifications now.
      const anyKey = async (request: FastifyRequest, reply: FastifyReply) => {
        if (!providers.all.some((p) => p.apiKey === bearer(request))) {
          return reply.code(401).send({ error_code: 'UNAUTHORIZED', message: 'invalid API key' } as never);
        }
        return undefined;
      };
      const control = { ...ROUTE, preHandler: anyKey };
      scope.post('/_control/faults', control, async (request, reply) => {
        const b = (request.body ?? {}) as Record<string, unknown>;
        const provider = typeof b['connector'] === 'string' ? providers.byConnector(b['connector']) : undefined;
        const faults = parseFaults(b['faults']);
        if (provider === undefined || faults === undefined) {
          return reply.code(400).send({ error_code: 'INVALID_REQUEST', message: 'connector and faults are required' } as never);
        }
        provider.faults = faults;
        return reply.send({ connector: provider.dialect.connector, faults } as never);
      });
      scope.post('/_control/dispatch', control, async (_request, reply) => {
        const expired = providers.tick();
        const sent = await providers.dispatchDue();
        return reply.send({ expired, sent } as never);
      });
      scope.post('/_control/release', control, async (request, reply) => {
        const b = (request.body ?? {}) as Record<string, unknown>;
        const order = b['order'] === 'reverse' ? 'reverse' : 'queued';
        const released = providers.all.reduce((n, p) => n + p.release(order), 0);
        return reply.send({ released } as never);
      });
      scope.post('/_control/reset', control, async (_request, reply) => {
        for (const p of providers.all) p.reset();
        return reply.send({ reset: true } as never);
      });
    },
    { prefix },
  );
}

function isAction(value: unknown): value is SimulateAction {
  return value === 'pay' || value === 'fail' || value === 'expire' || value === 'reverse' || value === 'settle';
}

/** The control API's fault body (snake_case on the wire) → the engine's faults. */
export function parseFaults(value: unknown): Faults | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, Record<string, unknown> | undefined>;
  const out: Faults = {};
  for (const kind of ['create', 'query', 'close'] as const) {
    const f = v[kind];
    if (f === undefined) continue;
    if (!['error', 'timeout', 'latency', 'decline'].includes(String(f['mode']))) return undefined;
    const spec: FaultSpec = { mode: f['mode'] as FaultSpec['mode'] };
    if (typeof f['latency_ms'] === 'number') spec.latencyMs = f['latency_ms'];
    if (typeof f['remaining'] === 'number') spec.remaining = f['remaining'];
    out[kind] = spec;
  }
  const r = v['refund'];
  if (r !== undefined) {
    if (!['pending', 'fail', 'decline', 'error', 'timeout'].includes(String(r['mode']))) return undefined;
    const spec: RefundFault = { mode: r['mode'] as RefundFault['mode'] };
    if (typeof r['delay_ms'] === 'number') spec.delayMs = r['delay_ms'];
    if (typeof r['remaining'] === 'number') spec.remaining = r['remaining'];
    out.refund = spec;
  }
  const n = v['notifications'];
  if (n !== undefined) {
    if (!['drop', 'duplicate', 'hold', 'delay'].includes(String(n['mode']))) return undefined;
    const spec: NotificationFault = { mode: n['mode'] as NotificationFault['mode'] };
    if (typeof n['delay_ms'] === 'number') spec.delayMs = n['delay_ms'];
    if (typeof n['remaining'] === 'number') spec.remaining = n['remaining'];
    out.notifications = spec;
  }
  const sr = v['settlement_report'] as unknown;
  if (sr !== undefined) {
    if (!Array.isArray(sr)) return undefined;
    const report: SettlementReportFault[] = [];
    for (const f of sr as unknown[]) {
      const item = (f ?? {}) as Record<string, unknown>;
      const kind = SETTLEMENT_REPORT_FAULT_KINDS.find((k) => k === item['kind']);
      if (kind === undefined || typeof item['charge_id'] !== 'string') return undefined;
      report.push({ kind, chargeId: item['charge_id'] });
    }
    out.settlementReport = report;
  }
  return out;
}
