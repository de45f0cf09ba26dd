import { randomBytes } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import { isStoreUnavailable } from '../../db/db-errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ExpireDeps } from '../../modules/checkouts/index.ts';
import type { PaymentLinkDeps } from '../../modules/payment-links/index.ts';
import type { DashboardSession, DashboardSessions } from '../../modules/team/index.ts';
import type { RateLimiter } from '../../modules/rate-limits/rate-limiter.ts';
import type { ReconcileDeps } from '../../modules/reconciliation/reconcile.ts';
import type { RefundDeps } from '../../modules/refunds/create-refund.ts';
import type { CancelPaymentDeps } from '../../modules/payments/cancel-payment.ts';
import { roleMay, type Permission } from '../../modules/team/index.ts';
import { html } from '../pages/html.ts';
import { withOrigin } from '../plugins/auth.ts';
import { barePage, DASHBOARD_HEADERS, type Frame, type Notice, page, type Screen } from './dashboard-layout.ts';
import { clearSessionCookie, sameOriginProblem, sessionTokenOf } from './dashboard-session.ts';
import type { Environment, Principal } from '../../kernel/index.ts';

/**
 * The dashboard's plumbing (docs/dashboard.md, decision 0019): form bodies, the session hook
 * (cookie → principal), the rate limit, the CSRF and origin checks, security headers and the
 * error pages, installed once on the /dashboard scope; and the small helpers its screens use.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of a /dashboard request (set by the dashboard's session hook). */
    dashboardSession: DashboardSession | null;
  }
  interface FastifyContextConfig {
    /** Dashboard routes reachable without a session (the login form and its POST). */
    dashboardPublic?: boolean;
    /** What a dashboard route's session must be allowed (docs/team.md); `signed_in`: any session. */
    permission?: Permission | 'signed_in';
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
  /** The API's cancel of a pending payment (the provider closes it first). */
  cancelPayment: CancelPaymentDeps;
  reconcile: ReconcileDeps;
  expireCheckout: ExpireDeps;
  /** Creates and deactivates payment links (the API's create, with its idempotency). */
  paymentLinks: PaymentLinkDeps;
  rateLimiter?: RateLimiter;
  /** Mails invitation links when SMTP_URL is set (docs/team.md); without it the link is only shown. */
  mailInvitation?: (to: string, merchantName: string, link: string) => Promise<void>;
}

/** What every screen gets: the dashboard's dependencies and the one session store they share. */
export interface ScreenDeps extends DashboardDeps {
  sessions: DashboardSessions;
}

/** An answer the dashboard renders as a page of its own (never the API's JSON error body). */
export class DashboardError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const PAGE_SIZE = 25;
export const DAY_MS = 86_400_000;
const FORM_BODY_LIMIT_BYTES = 8 * 1024;

// ---- route options ----

/**
 * A screen's route that needs a session allowed `permission` (modules/team/permissions.ts): `public`
 * for the API's bearer hook, checked by ours instead. Every page and every action names one.
 */
export const sessionRoute = (permission: Permission | 'signed_in') => ({
  config: { public: true, permission },
  schema: { hide: true },
});

/** What only a person may do (docs/team.md, "Keys and people"): a sandbox key's session may not manage the team. */
const PERSON_ONLY: ReadonlySet<Permission> = new Set<Permission>(['team.manage', 'team.transfer_ownership']);

/**
 * Whether a session may do what `permission` names: a person by their role; a (sandbox) key
 * session may do everything but what is a person's only. The one check: routes (before the body
 * is read) and pages (which tabs, forms and buttons to show, `frame.may`) both ask it.
 */
export function sessionMay(session: DashboardSession, permission: Permission | 'signed_in'): boolean {
  const actor = session.principal.actor;
  if (permission === 'signed_in') return true;
  if (actor.kind !== 'user') return !PERSON_ONLY.has(permission);
  return roleMay(actor.role, permission);
}

/** A dashboard route as registered: what tests iterate to check every route against every role. */
export interface DashboardRoute {
  method: string;
  url: string;
  permission: Permission | 'signed_in' | 'public';
}

/** A route reachable without a session (the login form and its POST). */
export const openRoute = () => ({ config: { public: true, dashboardPublic: true }, schema: { hide: true } });

// ---- reading the request ----

const NOTICES: Readonly<Record<string, Exclude<Notice, undefined>>> = {
  refund: { kind: 'ok', text: 'Refund requested. It shows in the timeline; the provider finishes it.' },
  redelivered: { kind: 'ok', text: 'Redelivery scheduled: new deliveries are in the timeline.' },
  payment_canceled: { kind: 'ok', text: 'Payment canceled. The payer can no longer pay it; payment.canceled was sent.' },
  checkout_expired: { kind: 'ok', text: 'Checkout expired. Its pending payment, if any, is canceled.' },
  payment_link_created: { kind: 'ok', text: 'Payment link created. Share its URL or QR code with payers.' },
  payment_link_deactivated: {
    kind: 'ok',
    text: 'Payment link deactivated. It takes no more payments; checkouts it already made stay payable.',
  },
  key_revoked: { kind: 'ok', text: 'Key revoked. It no longer works, here or in the API.' },
  signed_out: { kind: 'ok', text: 'Signed out.' },
  invitation_revoked: { kind: 'ok', text: 'Invitation revoked: its link no longer works.' },
  role_changed: { kind: 'ok', text: 'Role changed. It applies from their next click.' },
  member_removed: { kind: 'ok', text: 'Member removed. Their sessions ended.' },
  ownership_transferred: { kind: 'ok', text: 'Ownership transferred. You are an admin now.' },
  session_ended: {
    kind: 'bad',
    text: 'Your session ended (signed out, expired, or its key was revoked or rolled). Sign in again.',
  },
};

/** The notice a redirect asked for (`?notice=refund`): only our own texts, never one from the URL. */
export const noticeOf = (request: FastifyRequest): Notice => {
  const value = (request.query as Record<string, unknown> | undefined)?.['notice'];
  return typeof value === 'string' ? NOTICES[value] : undefined;
};

export function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
}

export function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const query = request.query as Record<string, unknown> | undefined;
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(query ?? {})) out[name] = typeof value === 'string' ? value : undefined;
  return out;
}

/** The Idempotency-Key a form carries so that sending it twice acts once; made when the page is rendered. */
export const newFormKey = () => `dashboard_${randomBytes(18).toString('base64url')}`;

/** The form's Idempotency-Key when it is one `newFormKey` made; anything else is ignored. */
export function formKeyOf(form: Record<string, string>): string | undefined {
  const key = form['idempotency_key'] ?? '';
  return /^dashboard_[A-Za-z0-9_-]{24}$/.test(key) ? key : undefined;
}

// ---- the session ----

const frameOfSession = (session: DashboardSession, screen: Screen): Frame => ({
  principal: session.principal,
  csrfToken: session.csrfToken,
  screen,
  may: (permission) => sessionMay(session, permission),
});

/**
 * The request's session as a screen uses it: its principal, the merchant and environment every
 * query is scoped by, and the frame of a page on a given screen. The session hook set it before
 * any screen's handler runs; a route without one answers 401.
 */
export function signedIn(request: FastifyRequest): {
  session: DashboardSession;
  principal: Principal;
  scope: { merchantId: string; environment: Environment };
  frame: (screen: Screen) => Frame;
} {
  const session = request.dashboardSession;
  if (session === null) throw new DashboardError(401, 'Sign in first.');
  const { merchantId, environment } = session.principal;
  return {
    session,
    principal: session.principal,
    scope: { merchantId, environment },
    frame: (screen) => frameOfSession(session, screen),
  };
}

// ---- answering ----

export function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send('');
}

function errorPage(frame: Frame | undefined, title: string, message: string): string {
  const body = html`<section class="card">
    <p id="error-message">${message}</p>
    <p><a href="/dashboard/payments">Back to the dashboard</a></p>
  </section>`;
  return frame === undefined
    ? barePage(
        title,
        html`<h1>${title}</h1>
          ${body}`,
      )
    : page(frame, title, undefined, body);
}

// ---- the plumbing ----

/**
 * Installs the plumbing on the /dashboard scope, before its screens: every screen's route gets
 * the headers, the session, the rate limit, the CSRF check and the dashboard's error pages.
 */
export function installDashboardPlumbing(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.decorateRequest('dashboardSession', null);
  acceptForms(dashboard);
  // On every answer of the scope, sign-in page, redirects and errors included.
  dashboard.addHook('onRequest', async (_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
  });
  dashboard.addHook('onRequest', async (request, reply) => resolveSession(deps, request, reply));
  dashboard.addHook('onRequest', async (request, reply) => takeRateLimit(deps, request, reply));
  dashboard.addHook('onRequest', async (request) => refuseWithoutPermission(request));
  dashboard.addHook('preHandler', async (request) => refuseForeignPosts(deps, request));
  dashboard.setErrorHandler(answerError);
  dashboard.setNotFoundHandler((_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
    return send(reply, 404, errorPage(undefined, 'Not found', 'There is no such dashboard page.'));
  });
}

/** Forms post application/x-www-form-urlencoded; parsed here only (the API stays JSON-only). */
function acceptForms(dashboard: FastifyInstance): void {
  dashboard.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const form: Record<string, string> = Object.create(null) as Record<string, string>;
      for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
      done(null, form);
    },
  );
}

/** The cookie's session and its principal; without a live one, the sign-in page for a GET and 401 otherwise. */
async function resolveSession(deps: ScreenDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  if (request.routeOptions.config.dashboardPublic === true || request.routeOptions.url === undefined) return;
  const token = sessionTokenOf(request, deps.publicBaseUrl);
  const session = token === undefined ? undefined : await deps.sessions.resolve(token);
  if (session === undefined) {
    if (token !== undefined) clearSessionCookie(request, reply, deps.publicBaseUrl);
    if (request.method === 'GET') return redirect(reply, '/dashboard/login');
    throw new DashboardError(401, NOTICES['session_ended']?.text ?? 'Sign in again.');
  }
  // Every screen acts with the session's principal and this request's origin (the audit log's).
  request.dashboardSession = { ...session, principal: withOrigin(session.principal, request) };
  request.principal = request.dashboardSession.principal;
  return undefined;
}

/** A route's permission, checked before its body is read: a role that may not gets 403 and nothing happens. */
async function refuseWithoutPermission(request: FastifyRequest): Promise<void> {
  const session = request.dashboardSession;
  const permission = request.routeOptions.config.permission;
  if (session === null || request.routeOptions.config.dashboardPublic === true) return;
  if (permission === undefined) throw new DashboardError(500, 'This page names no permission.');
  if (!sessionMay(session, permission)) {
    throw new DashboardError(403, 'Your role does not allow this. Ask an owner or admin of this account.');
  }
}

/** A session's requests draw on the same per-merchant, per-environment bucket as the API's. */
async function takeRateLimit(deps: ScreenDeps, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const session = request.dashboardSession;
  if (deps.rateLimiter === undefined || session === null) return;
  const decision = await deps.rateLimiter.take(`${session.principal.merchantId}:${session.principal.environment}`);
  if (decision.allowed) return;
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  reply.header('Retry-After', String(seconds));
  throw new DashboardError(429, `Too many requests. Retry after ${seconds} second(s).`);
}

/** State-changing requests: from our own pages only, and (with a session) carrying its CSRF token. */
async function refuseForeignPosts(deps: ScreenDeps, request: FastifyRequest): Promise<void> {
  if (request.method !== 'POST') return;
  const problem = sameOriginProblem(request, deps.publicBaseUrl);
  if (problem !== undefined) throw new DashboardError(403, problem);
  const session = request.dashboardSession;
  if (session !== null && !deps.sessions.csrfMatches(session, formOf(request)['csrf_token'])) {
    throw new DashboardError(403, 'The form is stale or did not come from this dashboard. Reload the page and try again.');
  }
}

function answerError(error: FastifyError | DashboardError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const frame = request.dashboardSession === null ? undefined : frameOfSession(request.dashboardSession, 'payments');
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
}
