import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Environment } from '../../connectors/core/connector.ts';
import { CHANNELS, type Channel } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import { isStoreUnavailable } from '../../db/db-errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { httpStatusOf } from '../../lib/error-catalogue.ts';
import { isIdOf } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { merchantBalances } from '../../modules/ledger/ledger.ts';
import { createDashboardSessions, type DashboardSession } from '../../modules/merchants/dashboard-sessions.ts';
import { createMerchantService } from '../../modules/merchants/merchant-service.ts';
import { listPayments, type PaymentListFilter } from '../../modules/payments/payment-query-repo.ts';
import { findPayment } from '../../modules/payments/payment-repo.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../modules/payments/payment-states.ts';
import { paymentTimeline } from '../../modules/payments/payment-timeline.ts';
import type { Principal } from '../../modules/payments/payment-types.ts';
import type { RateLimiter } from '../../modules/rate-limits/rate-limiter.ts';
import { createReconciliation, type ReconcileDeps } from '../../modules/reconciliation/reconcile.ts';
import {
  findReconciliation,
  listReconciliationLines,
  listRecentReconciliations,
} from '../../modules/reconciliation/reconciliation-repo.ts';
import { createRefund, type RefundDeps } from '../../modules/refunds/create-refund.ts';
import { REFUND_REASONS, REFUND_SOURCES, type RefundReason, type RefundSource } from '../../modules/refunds/refund-types.ts';
import { findSettlement, listSettlements } from '../../modules/settlement/settlement-repo.ts';
import { endpointHealth } from '../../modules/webhooks/delivery-repo.ts';
import { type RedeliveryTarget, redeliverEvent } from '../../modules/webhooks/delivery-service.ts';
import { listEndpoints } from '../../modules/webhooks/endpoint-repo.ts';
import { DASHBOARD_HEADERS, type Frame, type Notice, type Screen } from './dashboard-layout.ts';
import {
  balancePage,
  errorPage,
  keysPage,
  loginPage,
  paymentPage,
  paymentsPage,
  type PaymentFilters,
  reconciliationPage,
  reconciliationsPage,
  settlementPage,
  settlementsPage,
  webhooksPage,
} from './dashboard-pages.ts';
import { clearSessionCookie, sameOriginProblem, sessionTokenOf, setSessionCookie } from './dashboard-session.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of a /dashboard request (set by the dashboard's session hook). */
    dashboardSession: DashboardSession | null;
  }
  interface FastifyContextConfig {
    /** Dashboard routes reachable without a session (the login form and its POST). */
    dashboardPublic?: boolean;
  }
}

export interface DashboardDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Deployment secret: keys the session-token hash, the CSRF token and API-key hashes. */
  secret: string;
  publicBaseUrl: string;
  connectors: ConnectorRegistry;
  refund: RefundDeps;
  reconcile: ReconcileDeps;
  rateLimiter?: RateLimiter;
}

/** An answer the dashboard renders as a page of its own (never the API's JSON error body). */
class DashboardError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const PAGE_SIZE = 25;
const RECONCILIATION_LINES_PER_PAGE = 100;
const HEALTH_WINDOW_DAYS = 7;
const FORM_BODY_LIMIT_BYTES = 8 * 1024;
const MAX_OVERLAP_HOURS = 24 * 30;
const DAY_MS = 86_400_000;

const NOTICES: Readonly<Record<string, Exclude<Notice, undefined>>> = {
  refund: { kind: 'ok', text: 'Refund requested. It shows in the timeline; the provider finishes it.' },
  redelivered: { kind: 'ok', text: 'Redelivery scheduled: new deliveries are in the timeline.' },
  key_revoked: { kind: 'ok', text: 'Key revoked. It no longer works, here or in the API.' },
  signed_out: { kind: 'ok', text: 'Signed out.' },
  session_ended: {
    kind: 'bad',
    text: 'Your session ended (signed out, expired, or its key was revoked or rolled). Sign in again.',
  },
};

const noticeOf = (request: FastifyRequest): Notice => {
  const value = (request.query as Record<string, unknown> | undefined)?.['notice'];
  return typeof value === 'string' ? NOTICES[value] : undefined;
};

const newFormKey = () => `dashboard_${randomBytes(18).toString('base64url')}`;

function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
}

function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const q = request.query as Record<string, unknown> | undefined;
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(q ?? {})) out[k] = typeof v === 'string' ? v : undefined;
  return out;
}

function sessionOf(request: FastifyRequest): DashboardSession {
  if (request.dashboardSession === null) throw new DashboardError(401, 'Sign in first.');
  return request.dashboardSession;
}

const frameOf = (request: FastifyRequest, screen: Screen): Frame => {
  const s = sessionOf(request);
  return { principal: s.principal, csrfToken: s.csrfToken, screen };
};

function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send('');
}

/** `YYYY-MM-DD` as the start of that UTC day, or undefined for anything else. */
function utcDay(text: string | undefined): Date | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const d = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text ? undefined : d;
}

/** A `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`), read as UTC. */
function utcMinute(text: string | undefined): Date | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return undefined;
  const d = new Date(`${text.length === 16 ? `${text}:00` : text}.000Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const toMinuteText = (d: Date) => d.toISOString().slice(0, 16);

/**
 * The merchant dashboard under /dashboard (docs/dashboard.md, decision 0019): server-rendered
 * pages over the same module functions the API routes call, with the session's principal in place
 * of an API key's. Not part of the API: hidden from the OpenAPI document, marked `public` for the
 * bearer hook, and authenticated here by the session cookie instead.
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const sessions = createDashboardSessions({ store: deps.store, clock: deps.clock, secret: deps.secret });
  const merchants = createMerchantService({ store: deps.store, clock: deps.clock, secret: deps.secret });

  await app.register(
    async (d) => {
      d.decorateRequest('dashboardSession', null);
      // Forms post application/x-www-form-urlencoded; parsed here only (the API stays JSON-only).
      d.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
        (_request, body, done) => {
          const form: Record<string, string> = Object.create(null) as Record<string, string>;
          for (const [k, v] of new URLSearchParams(body as string)) if (!(k in form)) form[k] = v;
          done(null, form);
        },
      );

      d.addHook('onRequest', async (request, reply) => {
        reply.headers(DASHBOARD_HEADERS);
        if (request.routeOptions.config.dashboardPublic === true || request.routeOptions.url === undefined) return;
        const token = sessionTokenOf(request, deps.publicBaseUrl);
        const session = token === undefined ? undefined : await sessions.resolve(token);
        if (session === undefined) {
          if (token !== undefined) clearSessionCookie(request, reply, deps.publicBaseUrl);
          if (request.method === 'GET') return redirect(reply, '/dashboard/login');
          throw new DashboardError(401, NOTICES['session_ended']?.text ?? 'Sign in again.');
        }
        request.dashboardSession = session;
        request.principal = session.principal;
        if (deps.rateLimiter !== undefined) {
          const decision = await deps.rateLimiter.take(`${session.principal.merchantId}:${session.principal.environment}`);
          if (!decision.allowed) {
            const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
            reply.header('Retry-After', String(seconds));
            throw new DashboardError(429, `Too many requests. Retry after ${seconds} second(s).`);
          }
        }
        return undefined;
      });

      // State-changing requests: from our own pages only, and (with a session) carrying its CSRF token.
      d.addHook('preHandler', async (request) => {
        if (request.method !== 'POST') return;
        const problem = sameOriginProblem(request, deps.publicBaseUrl);
        if (problem !== undefined) throw new DashboardError(403, problem);
        const session = request.dashboardSession;
        if (session !== null && !sessions.csrfMatches(session, formOf(request)['csrf_token'])) {
          throw new DashboardError(403, 'The form is stale or did not come from this dashboard. Reload the page and try again.');
        }
      });

      d.setErrorHandler((error: FastifyError | DashboardError, request, reply) => {
        const frame: Frame | undefined =
          request.dashboardSession === null
            ? undefined
            : {
                principal: request.dashboardSession.principal,
                csrfToken: request.dashboardSession.csrfToken,
                screen: 'payments',
              };
        if (error instanceof DashboardError) {
          return send(reply, error.status, errorPage(frame, error.status === 403 ? 'Refused' : 'Problem', error.message));
        }
        if (isStoreUnavailable(error)) {
          request.log.warn({ err: error }, 'database unavailable');
          reply.header('Retry-After', '2');
          return send(reply, 503, errorPage(frame, 'Unavailable', 'The service is temporarily unavailable. Retry shortly.'));
        }
        const status = error.statusCode ?? 500;
        if (status >= 400 && status < 500) {
          // Body parsing and the like: the message is Fastify's own, never request content.
          return send(reply, status, errorPage(frame, 'Problem', 'The request is malformed.'));
        }
        // Logged without the request (its body may hold a key): the error and the request id only.
        request.log.error({ err: error }, 'dashboard: unhandled error');
        return send(reply, 500, errorPage(frame, 'Problem', 'An unexpected error occurred. It has been logged.'));
      });
      d.setNotFoundHandler((request, reply) => {
        reply.headers(DASHBOARD_HEADERS);
        return send(reply, 404, errorPage(undefined, 'Not found', 'There is no such dashboard page.'));
      });

      const open = { config: { public: true, dashboardPublic: true }, schema: { hide: true } };
      const guarded = { config: { public: true }, schema: { hide: true } };
      const principal = (request: FastifyRequest): Principal => sessionOf(request).principal;
      const scope = (request: FastifyRequest): { merchantId: string; environment: Environment } => ({
        merchantId: principal(request).merchantId,
        environment: principal(request).environment,
      });

      // ---- login / logout ----

      d.get('/', guarded, async (_request, reply) => redirect(reply, '/dashboard/payments'));

      d.get('/login', open, async (request, reply) => send(reply, 200, loginPage(noticeOf(request))));

      d.post('/login', open, async (request, reply) => {
        // The key is read from the form and handed to the session module, nothing else: never
        // logged, never echoed (a failed login re-renders an empty form), never in a URL.
        const key = formOf(request)['api_key']?.trim() ?? '';
        const result = await sessions.login(key);
        if (!result.ok) {
          const text =
            result.reason === 'rolled_key'
              ? 'This key was rolled: sign in with its replacement.'
              : 'That key is not valid (unknown, expired or revoked).';
          return send(reply, 401, loginPage({ kind: 'bad', text }));
        }
        setSessionCookie(request, reply, deps.publicBaseUrl, result.token);
        return redirect(reply, '/dashboard/payments');
      });

      d.post('/logout', guarded, async (request, reply) => {
        await sessions.logout(sessionOf(request));
        clearSessionCookie(request, reply, deps.publicBaseUrl);
        return redirect(reply, '/dashboard/login?notice=signed_out');
      });

      // ---- payments ----

      d.get('/payments', guarded, async (request, reply) => {
        const q = queryOf(request);
        const p = principal(request);
        const filters: PaymentFilters = {};
        const filter: PaymentListFilter = {};
        const problems: string[] = [];
        const search = q['q']?.trim();
        if (search !== undefined && search !== '') {
          filters.q = search;
          if (isIdOf('payment', search)) {
            const found = await findPayment(deps.store, p.merchantId, p.environment, search);
            if (found !== undefined) return redirect(reply, `/dashboard/payments/${found.id}`);
            return send(
              reply,
              200,
              paymentsPage(frameOf(request, 'payments'), { payments: [], hasMore: false, filters }, undefined),
            );
          }
          filter.referenceNo = search.slice(0, 255);
        }
        const statusText = q['status'];
        if (statusText !== undefined && statusText !== '') {
          if ((PAYMENT_STATUSES as readonly string[]).includes(statusText)) {
            filter.status = statusText as PaymentStatus;
            filters.status = statusText;
          } else problems.push('Unknown status.');
        }
        const channelText = q['channel'];
        if (channelText !== undefined && channelText !== '') {
          if ((CHANNELS as readonly string[]).includes(channelText)) {
            filter.channel = channelText as Channel;
            filters.channel = channelText;
          } else problems.push('Unknown channel.');
        }
        for (const [name, bound] of [
          ['from', 'createdGte'],
          ['to', 'createdLte'],
        ] as const) {
          const text = q[name];
          if (text === undefined || text === '') continue;
          const day = utcDay(text);
          if (day === undefined) {
            problems.push(`"${name}" must be a date (YYYY-MM-DD).`);
            continue;
          }
          filters[name] = text;
          // "to" includes the whole day.
          filter[bound] = bound === 'createdLte' ? new Date(day.getTime() + DAY_MS - 1) : day;
        }
        const after = q['starting_after'];
        const page = await listPayments(deps.store, p.merchantId, p.environment, filter, {
          limit: PAGE_SIZE,
          ...(after !== undefined && isIdOf('payment', after) ? { startingAfter: after } : {}),
        });
        if (!page.ok) problems.push('That page no longer exists; showing the first.');
        const shown = page.ok
          ? page
          : await listPayments(deps.store, p.merchantId, p.environment, filter, { limit: PAGE_SIZE }).then((r) =>
              r.ok ? r : { ok: true as const, payments: [], hasMore: false },
            );
        const notice: Notice = problems.length > 0 ? { kind: 'bad', text: problems.join(' ') } : noticeOf(request);
        return send(
          reply,
          problems.length > 0 ? 400 : 200,
          paymentsPage(frameOf(request, 'payments'), { payments: shown.payments, hasMore: shown.hasMore, filters }, notice),
        );
      });

      const renderPayment = async (request: FastifyRequest, reply: FastifyReply, id: string, status: number, notice: Notice) => {
        const p = principal(request);
        const timeline = isIdOf('payment', id) ? await paymentTimeline(deps.store, p.merchantId, p.environment, id) : undefined;
        if (timeline === undefined) throw new DashboardError(404, 'No such payment.');
        return send(
          reply,
          status,
          paymentPage(frameOf(request, 'payments'), timeline, {
            publicBaseUrl: deps.publicBaseUrl,
            refundIdempotencyKey: newFormKey(),
            notice,
          }),
        );
      };

      d.get<{ Params: { id: string } }>('/payments/:id', guarded, async (request, reply) =>
        renderPayment(request, reply, request.params.id, 200, noticeOf(request)),
      );

      d.post<{ Params: { id: string } }>('/payments/:id/refund', guarded, async (request, reply) => {
        const id = request.params.id;
        const form = formOf(request);
        const amount = form['amount']?.trim() ?? '';
        if (amount !== '' && !/^\d{1,15}(\.\d{1,4})?$/.test(amount)) {
          return renderPayment(request, reply, id, 400, {
            kind: 'bad',
            text: 'The amount must be a number like 50000 or 125.50.',
          });
        }
        const reason = form['reason'] ?? '';
        const source = form['source'] ?? '';
        const key = form['idempotency_key'] ?? '';
        const result = await createRefund(
          deps.refund,
          principal(request),
          id,
          {
            amountText: amount === '' ? null : amount,
            reason: (REFUND_REASONS as readonly string[]).includes(reason) ? (reason as RefundReason) : null,
            source: (REFUND_SOURCES as readonly string[]).includes(source) ? (source as RefundSource) : null,
          },
          /^dashboard_[A-Za-z0-9_-]{24}$/.test(key) ? key : undefined,
        );
        if (result.kind === 'failure') {
          return renderPayment(request, reply, id, httpStatusOf(result.code), { kind: 'bad', text: result.message });
        }
        return redirect(reply, `/dashboard/payments/${id}?notice=refund`);
      });

      d.post<{ Params: { id: string } }>('/events/:id/redeliver', guarded, async (request, reply) => {
        const form = formOf(request);
        const paymentId = form['payment_id'] ?? '';
        if (!isIdOf('payment', paymentId)) throw new DashboardError(400, 'The form names no payment.');
        const eventId = request.params.id;
        if (!isIdOf('event', eventId)) throw new DashboardError(404, 'No such event.');
        let target: RedeliveryTarget = { kind: 'all' };
        if (form['target'] === 'callback_url') target = { kind: 'callback_url' };
        if (form['target'] === 'endpoint') {
          const endpointId = form['endpoint_id'] ?? '';
          if (!isIdOf('webhookEndpoint', endpointId)) throw new DashboardError(404, 'No such webhook endpoint.');
          target = { kind: 'endpoint', endpointId };
        }
        const result = await redeliverEvent({ store: deps.store, clock: deps.clock }, scope(request), eventId, target);
        if (!result.ok)
          return renderPayment(request, reply, paymentId, httpStatusOf(result.code), { kind: 'bad', text: result.message });
        return redirect(reply, `/dashboard/payments/${paymentId}?notice=redelivered#event-${eventId}`);
      });

      // ---- webhook endpoints ----

      d.get('/webhooks', guarded, async (request, reply) => {
        const t = scope(request);
        const endpoints = await listEndpoints(deps.store, t.merchantId, t.environment);
        const since = new Date(deps.clock.now().getTime() - HEALTH_WINDOW_DAYS * DAY_MS);
        const health = await endpointHealth(
          deps.store,
          t,
          endpoints.map((e) => e.id),
          since,
        );
        return send(reply, 200, webhooksPage(frameOf(request, 'webhooks'), endpoints, health, HEALTH_WINDOW_DAYS));
      });

      // ---- keys (this merchant's, in this session's environment) ----

      const renderKeys = async (
        request: FastifyRequest,
        reply: FastifyReply,
        status: number,
        extra: { revealed?: { id: string; secret: string; note: string }; notice?: Notice },
      ) => {
        const keys = await merchants.listKeysOf(scope(request));
        return send(
          reply,
          status,
          keysPage(frameOf(request, 'keys'), keys, {
            now: deps.clock.now(),
            notice: extra.notice ?? noticeOf(request),
            ...(extra.revealed === undefined ? {} : { revealed: extra.revealed }),
          }),
        );
      };

      d.get('/keys', guarded, async (request, reply) => renderKeys(request, reply, 200, {}));

      d.post('/keys', guarded, async (request, reply) => {
        const t = scope(request);
        const issued = await merchants.createKey(t.merchantId, t.environment);
        if (issued === undefined) throw new DashboardError(404, 'No such merchant.');
        return renderKeys(request, reply, 201, {
          revealed: { id: issued.key.id, secret: issued.secret, note: 'It works at once, in the API and to sign in here.' },
        });
      });

      d.post<{ Params: { id: string } }>('/keys/:id/roll', guarded, async (request, reply) => {
        const hoursText = formOf(request)['overlap_hours']?.trim() ?? '24';
        if (!/^\d{1,4}$/.test(hoursText) || Number(hoursText) > MAX_OVERLAP_HOURS) {
          return renderKeys(request, reply, 400, {
            notice: { kind: 'bad', text: `Overlap must be 0-${MAX_OVERLAP_HOURS} hours.` },
          });
        }
        const id = request.params.id;
        const rolled = isIdOf('apiKey', id)
          ? await merchants.rollKey(id, Number(hoursText) * 3_600_000, scope(request))
          : undefined;
        if (rolled === undefined) throw new DashboardError(404, 'No such active key.');
        const ownKey = id === principal(request).keyId;
        // Rolling the session's own key ends the session: the new key is shown this once, then sign in with it.
        if (ownKey) clearSessionCookie(request, reply, deps.publicBaseUrl);
        return renderKeys(request, reply, 201, {
          revealed: {
            id: rolled.issued.key.id,
            secret: rolled.issued.secret,
            note: `${id} keeps working in the API until ${rolled.oldExpiresAt.toISOString()}.${
              ownKey ? ' This session was opened with it and has ended: sign in with the new key.' : ''
            }`,
          },
        });
      });

      d.post<{ Params: { id: string } }>('/keys/:id/revoke', guarded, async (request, reply) => {
        const id = request.params.id;
        const outcome = isIdOf('apiKey', id) ? await merchants.revokeKey(id, scope(request)) : 'not_found';
        if (outcome === 'not_found') throw new DashboardError(404, 'No such key.');
        if (id === principal(request).keyId) {
          clearSessionCookie(request, reply, deps.publicBaseUrl);
          return redirect(reply, '/dashboard/login?notice=session_ended');
        }
        return redirect(reply, '/dashboard/keys?notice=key_revoked');
      });

      // ---- money ----

      d.get('/balance', guarded, async (request, reply) => {
        const t = scope(request);
        const balances = await merchantBalances(deps.store, t.merchantId, t.environment);
        return send(reply, 200, balancePage(frameOf(request, 'balance'), balances));
      });

      d.get('/settlements', guarded, async (request, reply) => {
        const t = scope(request);
        const after = queryOf(request)['starting_after'];
        const page = await listSettlements(deps.store, t.merchantId, t.environment, {
          limit: PAGE_SIZE,
          ...(after !== undefined && isIdOf('settlement', after) ? { startingAfter: after } : {}),
        });
        if (!page.ok) return redirect(reply, '/dashboard/settlements');
        return send(reply, 200, settlementsPage(frameOf(request, 'settlements'), page.settlements, page.hasMore));
      });

      d.get<{ Params: { id: string } }>('/settlements/:id', guarded, async (request, reply) => {
        const t = scope(request);
        const id = request.params.id;
        const found = isIdOf('settlement', id) ? await findSettlement(deps.store, t.merchantId, t.environment, id) : undefined;
        if (found === undefined) throw new DashboardError(404, 'No such settlement.');
        return send(reply, 200, settlementPage(frameOf(request, 'settlements'), found.settlement, found.lines));
      });

      const renderReconciliations = async (request: FastifyRequest, reply: FastifyReply, status: number, notice: Notice) => {
        const t = scope(request);
        const recent = await listRecentReconciliations(deps.store, t.merchantId, t.environment, PAGE_SIZE);
        const now = deps.clock.now();
        const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
        return send(
          reply,
          status,
          reconciliationsPage(frameOf(request, 'reconciliation'), {
            recent,
            connectors: deps.connectors
              .enabledFor(t.environment)
              .filter((c) => c.supports.settlement)
              .map((c) => c.connector),
            idempotencyKey: newFormKey(),
            defaults: {
              from: toMinuteText(new Date(today.getTime() - DAY_MS)),
              to: toMinuteText(new Date(today.getTime() + DAY_MS)),
            },
            notice,
          }),
        );
      };

      d.get('/reconciliation', guarded, async (request, reply) => renderReconciliations(request, reply, 200, noticeOf(request)));

      d.post('/reconciliation', guarded, async (request, reply) => {
        const form = formOf(request);
        const from = utcMinute(form['from']);
        const to = utcMinute(form['to']);
        if (from === undefined || to === undefined) {
          return renderReconciliations(request, reply, 400, { kind: 'bad', text: 'Give the window as dates and times (UTC).' });
        }
        const key = form['idempotency_key'] ?? '';
        const result = await createReconciliation(
          deps.reconcile,
          principal(request),
          { connector: form['connector'] ?? '', from, to },
          /^dashboard_[A-Za-z0-9_-]{24}$/.test(key) ? key : undefined,
        );
        if (result.kind === 'failure') {
          const details = result.details
            .map((x) => (typeof x['message'] === 'string' ? x['message'] : ''))
            .filter((m) => m !== '')
            .join('; ');
          return renderReconciliations(request, reply, httpStatusOf(result.code), {
            kind: 'bad',
            text: details === '' ? result.message : `${result.message} ${details}`,
          });
        }
        // The operation answers with the API's stored JSON; its id is all the page needs.
        const id = (JSON.parse(result.body) as { id?: unknown }).id;
        if (typeof id !== 'string' || !isIdOf('reconciliation', id)) throw new Error('reconciliation answer without an id');
        return redirect(reply, `/dashboard/reconciliation/${id}`);
      });

      d.get<{ Params: { id: string } }>('/reconciliation/:id', guarded, async (request, reply) => {
        const t = scope(request);
        const id = request.params.id;
        const found = isIdOf('reconciliation', id)
          ? await findReconciliation(deps.store, t.merchantId, t.environment, id)
          : undefined;
        if (found === undefined) throw new DashboardError(404, 'No such reconciliation.');
        const afterText = queryOf(request)['after'];
        const afterSeq = afterText !== undefined && /^\d{1,9}$/.test(afterText) ? Number(afterText) : 0;
        const lines = await listReconciliationLines(deps.store, t.merchantId, t.environment, found.id, {
          afterSeq,
          limit: RECONCILIATION_LINES_PER_PAGE,
          discrepanciesOnly: true,
        });
        return send(reply, 200, reconciliationPage(frameOf(request, 'reconciliation'), found, lines, noticeOf(request)));
      });
    },
    { prefix: '/dashboard' },
  );
}
