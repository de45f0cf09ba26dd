import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keyIdOf } from '../../../kernel/index.ts';
import { isIdOf } from '../../../lib/ids.ts';
import type { ApiKeyRecord } from '../../../modules/merchants/merchant-repo.ts';
import { createMerchantService } from '../../../modules/merchants/merchant-service.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { csrfField, type Frame, type Notice, page, status, when } from '../dashboard-layout.ts';
import {
  DashboardError,
  formOf,
  noticeOf,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';
import { clearSessionCookie } from '../dashboard-session.ts';

const MAX_OVERLAP_HOURS = 24 * 30;

type WithId = { Params: { id: string } };

/**
 * The API keys of the session's merchant in the session's environment (`/dashboard/keys`): create
 * one, roll one (the old key works in the API for the overlap chosen), revoke one. A new secret is
 * shown once, on the answer that made it.
 */
export function registerKeysScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const merchants = createMerchantService({ store: deps.store, clock: deps.clock, secret: deps.secret });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    statusCode: number,
    extra: { revealed?: RevealedKey; notice?: Notice },
  ) => {
    const { scope, frame } = signedIn(request);
    const keys = await merchants.listKeysOf(scope);
    return send(
      reply,
      statusCode,
      keysPage(frame('keys'), keys, {
        now: deps.clock.now(),
        notice: extra.notice ?? noticeOf(request),
        ...(extra.revealed === undefined ? {} : { revealed: extra.revealed }),
      }),
    );
  };

  dashboard.get('/keys', sessionRoute('keys.read'), async (request, reply) => show(request, reply, 200, {}));

  dashboard.post('/keys', sessionRoute('keys.manage'), async (request, reply) => {
    const { scope, principal } = signedIn(request);
    const issued = await merchants.createKey(scope.merchantId, scope.environment, principal);
    if (issued === undefined) throw new DashboardError(404, 'No such merchant.');
    return show(request, reply, 201, {
      revealed: { id: issued.key.id, secret: issued.secret, note: 'It works at once, in the API and to sign in here.' },
    });
  });

  dashboard.post<WithId>('/keys/:id/roll', sessionRoute('keys.manage'), async (request, reply) => {
    const hoursText = formOf(request)['overlap_hours']?.trim() ?? '24';
    if (!/^\d{1,4}$/.test(hoursText) || Number(hoursText) > MAX_OVERLAP_HOURS) {
      return show(request, reply, 400, { notice: { kind: 'bad', text: `Overlap must be 0-${MAX_OVERLAP_HOURS} hours.` } });
    }
    const id = request.params.id;
    const rolled = isIdOf('apiKey', id)
      ? await merchants.rollKey(id, Number(hoursText) * 3_600_000, signedIn(request).principal, signedIn(request).scope)
      : undefined;
    if (rolled === undefined) throw new DashboardError(404, 'No such active key.');
    const ownKey = id === keyIdOf(signedIn(request).principal);
    // Rolling the session's own key ends the session: the new key is shown this once, then sign in with it.
    if (ownKey) clearSessionCookie(request, reply, deps.publicBaseUrl);
    return show(request, reply, 201, {
      revealed: { id: rolled.issued.key.id, secret: rolled.issued.secret, note: rolledKeyNote(id, rolled.oldExpiresAt, ownKey) },
    });
  });

  dashboard.post<WithId>('/keys/:id/revoke', sessionRoute('keys.manage'), async (request, reply) => {
    const id = request.params.id;
    const outcome = isIdOf('apiKey', id)
      ? await merchants.revokeKey(id, signedIn(request).principal, signedIn(request).scope)
      : 'not_found';
    if (outcome === 'not_found') throw new DashboardError(404, 'No such key.');
    if (id === keyIdOf(signedIn(request).principal)) {
      clearSessionCookie(request, reply, deps.publicBaseUrl);
      return redirect(reply, '/dashboard/login?notice=session_ended');
    }
    return redirect(reply, '/dashboard/keys?notice=key_revoked');
  });
}

function rolledKeyNote(oldKeyId: string, oldExpiresAt: Date, ownKey: boolean): string {
  const ended = ownKey ? ' This session was opened with it and has ended: sign in with the new key.' : '';
  return `${oldKeyId} keeps working in the API until ${oldExpiresAt.toISOString()}.${ended}`;
}

interface RevealedKey {
  id: string;
  secret: string;
  note: string;
}

function keyState(k: ApiKeyRecord, now: Date): SafeHtml {
  if (k.revokedAt !== null) return status('revoked');
  if (k.expiresAt !== null)
    return k.expiresAt <= now ? status('revoked', 'expired') : html`${status('rolled')} until ${when(k.expiresAt)}`;
  return status('active');
}

function keysPage(
  frame: Frame,
  keys: readonly ApiKeyRecord[],
  options: { now: Date; revealed?: RevealedKey; notice: Notice },
): string {
  const env = frame.principal.environment;
  const r = options.revealed;
  return page(
    frame,
    'API keys',
    options.notice,
    html`${
        r === undefined
          ? ''
          : html`<section class="card" id="revealed-key">
              <h2>New key <code>${r.id}</code></h2>
              <p>Copy it now: it is shown this once and cannot be shown again.</p>
              <code class="secret" id="new-secret">${r.secret}</code>
              <p class="muted">${r.note}</p>
            </section>`
      }
      <section class="card">
        <table id="keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Prefix</th>
              <th>Created</th>
              <th>State</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            ${keys.map((k) => {
              const usable = k.revokedAt === null && (k.expiresAt === null || k.expiresAt > options.now);
              return html`<tr data-key-id="${k.id}">
                <td>
                  <code>${k.id}</code>${k.id === keyIdOf(frame.principal) ? html` <span class="muted">(this session)</span>` : ''}
                </td>
                <td><code>${k.displayPrefix}</code></td>
                <td>${when(k.createdAt)}</td>
                <td>${keyState(k, options.now)}</td>
                <td>
                  ${
                    usable && frame.may('keys.manage')
                      ? html`<form class="inline" method="post" action="/dashboard/keys/${k.id}/roll">
                            ${csrfField(frame.csrfToken)}
                            <label
                              >Old key works for (hours)
                              <input type="number" name="overlap_hours" value="24" min="0" max="720" id="overlap-${k.id}" />
                            </label>
                            <button type="submit" class="secondary" id="roll-${k.id}">Roll</button>
                          </form>
                          <form class="inline" method="post" action="/dashboard/keys/${k.id}/revoke">
                            ${csrfField(frame.csrfToken)}
                            <button type="submit" class="danger" id="revoke-${k.id}">Revoke</button>
                          </form>`
                      : ''
                  }
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      </section>
      ${
        frame.may('keys.manage')
          ? html`<section class="card">
              <form method="post" action="/dashboard/keys">
                ${csrfField(frame.csrfToken)}
                <button type="submit" id="create-key">Create a ${env} key</button>
              </form>
              <p class="muted">This page manages ${env} keys. Revoking or rolling the key of this session ends the session.</p>
            </section>`
          : ''
      }`,
  );
}
