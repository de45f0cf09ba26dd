import type { FastifyInstance } from 'fastify';
import { html } from '../../pages/html.ts';
import { barePage, type Notice, noticeBlock } from '../dashboard-layout.ts';
import { formOf, noticeOf, openRoute, redirect, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';
import { clearSessionCookie, setSessionCookie } from '../dashboard-session.ts';

/** Sign in with a secret API key (`GET`/`POST /dashboard/login`) and sign out (`POST /dashboard/logout`). */
export function registerSignInScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/login', openRoute(), async (request, reply) => send(reply, 200, loginPage(noticeOf(request))));

  dashboard.post('/login', openRoute(), async (request, reply) => {
    // The key is read from the form and handed to the session module, nothing else: never
    // logged, never echoed (a failed login re-renders an empty form), never in a URL.
    const key = formOf(request)['api_key']?.trim() ?? '';
    const result = await deps.sessions.login(key);
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

  dashboard.post('/logout', sessionRoute('signed_in'), async (request, reply) => {
    await deps.sessions.logout(signedIn(request).session);
    clearSessionCookie(request, reply, deps.publicBaseUrl);
    return redirect(reply, '/dashboard/login?notice=signed_out');
  });
}

function loginPage(notice: Notice): string {
  return barePage(
    'Sign in',
    html`<section class="card">
      <h1>Tributary dashboard</h1>
      ${noticeBlock(notice)}
      <form method="post" action="/dashboard/login" id="login-form" autocomplete="off">
        <label
          >Secret API key (sk_test_… for the sandbox, sk_live_… for production)
          <input type="password" name="api_key" id="api-key" required maxlength="64" autocomplete="off" spellcheck="false" />
        </label>
        <button type="submit" id="login">Sign in</button>
      </form>
      <p class="muted">
        The key is sent once to open a session and is never stored in the browser. The dashboard shows the key's merchant in the
        key's environment.
      </p>
    </section>`,
  );
}
