import type { FastifyInstance } from 'fastify';
import {
  acceptInvitation,
  newTotpSecret,
  openInvitation,
  PASSWORD_MIN_LENGTH,
  signSetupSecret,
  totpUri,
} from '../../../modules/team/index.ts';
import { html } from '../../pages/html.ts';
import { qrSvg } from '../../pages/qr-svg.ts';
import { originOf } from '../../plugins/auth.ts';
import { barePage, type Notice, noticeBlock } from '../dashboard-layout.ts';
import { formOf, openRoute, type ScreenDeps, send } from '../dashboard-plugin.ts';

type WithToken = { Params: { token: string } };

/**
 * Joining a team by an invitation link (`/dashboard/invitations/{token}`, docs/team.md): set a
 * password, scan the QR code into an authenticator app, confirm with a code; the recovery codes are
 * shown once; then sign in. The page carries the TOTP secret it showed, signed, so the answer needs
 * no state between the two requests.
 */
export function registerInvitationScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const invalid = () =>
    barePage(
      'Invitation',
      html`<section class="card">
        <h1>Invitation</h1>
        <p id="error-message">This invitation link is not valid: it was used, revoked or has expired. Ask for a new one.</p>
        <p><a href="/dashboard/login">Sign in</a></p>
      </section>`,
    );

  const setup = async (token: string, totpSecret: string, notice: Notice): Promise<string | undefined> => {
    const invitation = await openInvitation(deps, token);
    if (invitation === undefined) return undefined;
    const uri = totpUri(totpSecret, invitation.email ?? invitation.merchantName, invitation.merchantName);
    const qr = await qrSvg(uri, 'QR code to add this account to an authenticator app');
    return barePage(
      'Join the team',
      html`<section class="card">
        <h1>Join ${invitation.merchantName}</h1>
        <p>
          You are invited as <strong id="invited-role">${invitation.role}</strong>
          ${invitation.email === null ? '' : html`with <strong id="invited-email">${invitation.email}</strong>`}.
        </p>
        ${noticeBlock(notice)}
        <form method="post" action="/dashboard/invitations/${token}" id="setup-form" autocomplete="off">
          <input type="hidden" name="totp_secret" value="${totpSecret}" />
          ${
            invitation.email === null
              ? html`<label
                  >Your e-mail <input type="email" name="email" id="setup-email" required maxlength="254" autocomplete="username"
                /></label>`
              : ''
          }
          <input type="hidden" name="totp_signature" value="${signSetupSecret(deps, token, totpSecret)}" />
          <label
            >Password (at least ${PASSWORD_MIN_LENGTH} characters)
            <input
              type="password"
              name="password"
              id="new-password"
              required
              minlength="${PASSWORD_MIN_LENGTH}"
              maxlength="200"
              autocomplete="new-password"
            />
          </label>
          <label
            >Password again
            <input
              type="password"
              name="password_again"
              id="new-password-again"
              required
              maxlength="200"
              autocomplete="new-password"
            />
          </label>
          <p>Scan this code with an authenticator app (or enter the key by hand), then enter the 6-digit code it shows.</p>
          ${
            qr === undefined
              ? ''
              : html`<figure class="qr">
                  ${qr}
                  <figcaption>Authenticator set-up code</figcaption>
                </figure>`
          }
          <p>Key: <code id="totp-secret">${totpSecret}</code></p>
          <label
            >Code from the app
            <input
              type="text"
              name="code"
              id="setup-code"
              required
              maxlength="10"
              inputmode="numeric"
              autocomplete="one-time-code"
            />
          </label>
          <button type="submit" id="join">Join</button>
        </form>
      </section>`,
    );
  };

  dashboard.get<WithToken>('/invitations/:token', openRoute(), async (request, reply) => {
    const page = await setup(request.params.token, newTotpSecret(), undefined);
    return send(reply, page === undefined ? 404 : 200, page ?? invalid());
  });

  dashboard.post<WithToken>('/invitations/:token', openRoute(), async (request, reply) => {
    const token = request.params.token;
    const form = formOf(request);
    const input = {
      password: form['password'] ?? '',
      passwordAgain: form['password_again'] ?? '',
      totpSecret: form['totp_secret'] ?? '',
      totpSignature: form['totp_signature'] ?? '',
      code: form['code'] ?? '',
      email: form['email'] ?? '',
    };
    const result = await acceptInvitation(deps, token, input, originOf(request));
    if (!result.ok) {
      if (result.code === 'not_found') return send(reply, 404, invalid());
      // The same secret again when the form's was ours (the app already has it), else a new one.
      const sameSecret =
        /^[A-Z2-7]{32}$/.test(input.totpSecret) && input.totpSignature === signSetupSecret(deps, token, input.totpSecret);
      const page = await setup(token, sameSecret ? input.totpSecret : newTotpSecret(), { kind: 'bad', text: result.message });
      return send(reply, result.code === 'conflict' ? 409 : 400, page ?? invalid());
    }
    return send(
      reply,
      200,
      barePage(
        'Welcome',
        html`<section class="card">
          <h1>You joined the team</h1>
          <p>
            Keep these recovery codes somewhere safe. Each works once, in place of a code from your app. They are shown only now.
          </p>
          <ul id="recovery-codes">
            ${result.recoveryCodes.map((c) => html`<li><code>${c}</code></li>`)}
          </ul>
          <p><a href="/dashboard/login" id="continue-sign-in">Sign in</a> with ${result.user.email}.</p>
        </section>`,
      ),
    );
  });
}
