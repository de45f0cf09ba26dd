import type { FastifyInstance } from 'fastify';
import { codeStep, passwordStep, signOut } from '../../../modules/team/index.ts';
import { html } from '../../pages/html.ts';
import { originOf } from '../../plugins/auth.ts';
import { barePage, type Notice, noticeBlock, option } from '../dashboard-layout.ts';
import {
  DashboardError,
  formOf,
  noticeOf,
  openRoute,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';
import { clearSessionCookie, setSessionCookie } from '../dashboard-session.ts';
import type { Environment } from '../../../kernel/index.ts';

/**
 * Signing in (docs/team.md): a person with e-mail and password (`POST /dashboard/login`), then a
 * TOTP or recovery code (`POST /dashboard/login/code`); or, for the sandbox only, a secret key
 * (`POST /dashboard/login` with `api_key`). Sign out (`POST /dashboard/logout`); a person switches
 * between sandbox and production (`POST /dashboard/environment`).
 */
export function registerSignInScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/login', openRoute(), async (request, reply) => send(reply, 200, loginPage(noticeOf(request))));

  dashboard.post('/login', openRoute(), async (request, reply) => {
    const form = formOf(request);
    if (form['api_key'] !== undefined) {
      // The key is read from the form and handed to the session module, nothing else: never
      // logged, never echoed (a failed login re-renders an empty form), never in a URL.
      const result = await deps.sessions.login(form['api_key'].trim());
      if (!result.ok) {
        const text =
          result.reason === 'rolled_key'
            ? 'This key was rolled: sign in with its replacement.'
            : result.reason === 'production_key'
              ? 'A production key cannot open the dashboard: production data needs a person. Sign in with your e-mail and password.'
              : 'That key is not valid (unknown, expired or revoked).';
        return send(reply, result.reason === 'production_key' ? 403 : 401, loginPage({ kind: 'bad', text }));
      }
      setSessionCookie(request, reply, deps.publicBaseUrl, result.token);
      return redirect(reply, '/dashboard/payments');
    }
    const email = (form['email'] ?? '').slice(0, 254);
    const result = await passwordStep(deps, { email, password: form['password'] ?? '' }, originOf(request));
    if (!result.ok)
      return send(reply, result.reason === 'too_many' ? 429 : 401, loginPage({ kind: 'bad', text: result.message }, email));
    return send(reply, 200, codePage(result.pending, result.choices, undefined));
  });

  dashboard.post('/login/code', openRoute(), async (request, reply) => {
    const form = formOf(request);
    const environment: Environment = form['environment'] === 'sandbox' ? 'sandbox' : 'production';
    const result = await codeStep(
      deps,
      {
        pending: form['pending'] ?? '',
        code: form['code'] ?? '',
        environment,
        ...(form['user_id'] === undefined ? {} : { userId: form['user_id'] }),
      },
      originOf(request),
    );
    if (result.ok) {
      setSessionCookie(request, reply, deps.publicBaseUrl, result.token);
      return redirect(reply, '/dashboard/payments');
    }
    // Too many attempts, or a step that took too long: back to the start.
    if (result.reason !== 'not_right') {
      return send(reply, result.reason === 'too_many' ? 429 : 401, loginPage({ kind: 'bad', text: result.message }));
    }
    return send(reply, 401, codePage(form['pending'] ?? '', [], { kind: 'bad', text: result.message }, form['user_id']));
  });

  dashboard.post('/logout', sessionRoute('signed_in'), async (request, reply) => {
    await signOut(deps, signedIn(request).session);
    clearSessionCookie(request, reply, deps.publicBaseUrl);
    return redirect(reply, '/dashboard/login?notice=signed_out');
  });

  dashboard.post('/environment', sessionRoute('signed_in'), async (request, reply) => {
    const { session } = signedIn(request);
    if (session.principal.actor.kind !== 'user') {
      throw new DashboardError(400, "A key's session stays in its key's environment: sign in with the other environment's key.");
    }
    const environment: Environment = formOf(request)['environment'] === 'sandbox' ? 'sandbox' : 'production';
    await deps.sessions.switchEnvironment(session, environment);
    return redirect(reply, '/dashboard/payments');
  });
}

function loginPage(notice: Notice, email = ''): string {
  return barePage(
    'Sign in',
    html`<section class="card">
        <h1>Tributary dashboard</h1>
        ${noticeBlock(notice)}
        <form method="post" action="/dashboard/login" id="login-form">
          <label
            >E-mail
            <input type="email" name="email" id="email" required maxlength="254" autocomplete="username" value="${email}" />
          </label>
          <label
            >Password
            <input type="password" name="password" id="password" required maxlength="200" autocomplete="current-password" />
          </label>
          <button type="submit" id="sign-in">Continue</button>
        </form>
        <p class="muted">Then enter the code your authenticator app shows. New here? Open the invitation link you were sent.</p>
      </section>
      <section class="card">
        <h2>Sandbox only: sign in with a secret key</h2>
        <form method="post" action="/dashboard/login" id="key-login-form" autocomplete="off">
          <label
            >Sandbox secret key (sk_test_…)
            <input type="password" name="api_key" id="api-key" required maxlength="64" autocomplete="off" spellcheck="false" />
          </label>
          <button type="submit" id="login" class="secondary">Sign in with key</button>
        </form>
        <p class="muted">
          The key is sent once to open a session and is never stored in the browser. A production key (sk_live_…) cannot open the
          dashboard: production data needs a person.
        </p>
      </section>`,
  );
}

function codePage(
  pending: string,
  choices: readonly { userId: string; merchantName: string }[],
  notice: Notice,
  chosen?: string,
): string {
  return barePage(
    'Enter your code',
    html`<section class="card">
      <h1>Two-factor code</h1>
      ${noticeBlock(notice)}
      <form method="post" action="/dashboard/login/code" id="code-form" autocomplete="off">
        <input type="hidden" name="pending" value="${pending}" />
        ${
          choices.length > 1
            ? html`<label
                >Merchant
                <select name="user_id" id="merchant-choice">
                  ${choices.map((c) => option(c.userId, c.merchantName, chosen))}
                </select>
              </label>`
            : chosen === undefined
              ? ''
              : html`<input type="hidden" name="user_id" value="${chosen}" />`
        }
        <label
          >Code from your authenticator app (or a recovery code)
          <input
            type="text"
            name="code"
            id="code"
            required
            maxlength="20"
            inputmode="numeric"
            autocomplete="one-time-code"
            spellcheck="false"
          />
        </label>
        <label
          >Open
          <select name="environment" id="environment-choice">
            ${option('production', 'Production', 'production')} ${option('sandbox', 'Sandbox', undefined)}
          </select>
        </label>
        <button type="submit" id="verify">Sign in</button>
      </form>
      <p class="muted"><a href="/dashboard/login">Start again</a></p>
    </section>`,
  );
}
