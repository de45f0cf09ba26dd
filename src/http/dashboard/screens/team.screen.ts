import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import {
  changeRole,
  inviteMember,
  listTeam,
  type Member,
  removeMember,
  revokeInvitation,
  type TeamRefusal,
  transferOwnership,
} from '../../../modules/team/index.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import {
  COPY_SCRIPT_ELEMENT,
  csrfField,
  DASHBOARD_CSP_WITH_COPY_SCRIPT,
  type Frame,
  type Notice,
  option,
  page,
  when,
} from '../dashboard-layout.ts';
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
import { type Principal, ROLES, type Role } from '../../../kernel/index.ts';

type WithId = { Params: { id: string } };

const STATUS: Record<TeamRefusal['code'], number> = {
  invalid: 400,
  not_found: 404,
  forbidden: 403,
  last_owner: 409,
  conflict: 409,
};

/**
 * The team (`/dashboard/team`, docs/team.md): members and pending invitations; invite (the one-time
 * link is shown to copy), revoke an invitation, change a role, remove a member, transfer
 * ownership. Each form is shown only to a session its route lets through (`frame.may`).
 */
export function registerTeamScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    statusCode: number,
    notice: Notice,
    invited?: { email: string; link: string; mailed: boolean },
  ) => {
    const { frame, scope } = signedIn(request);
    const team = await listTeam(deps, scope.merchantId);
    reply.header('Content-Security-Policy', DASHBOARD_CSP_WITH_COPY_SCRIPT);
    return send(reply, statusCode, teamPage(frame('team'), team, notice, invited));
  };
  const refused = (request: FastifyRequest, reply: FastifyReply, r: TeamRefusal) =>
    show(request, reply, STATUS[r.code], { kind: 'bad', text: r.message });

  dashboard.get('/team', sessionRoute('team.read'), async (request, reply) => show(request, reply, 200, noticeOf(request)));

  dashboard.post('/team/invitations', sessionRoute('team.manage'), async (request, reply) => {
    const form = formOf(request);
    const result = await inviteMember(deps, signedIn(request).principal, {
      email: form['email'] ?? '',
      role: form['role'] ?? '',
    });
    if (!result.ok) return refused(request, reply, result);
    return show(
      request,
      reply,
      201,
      { kind: 'ok', text: `Invitation made for ${result.invitation.email ?? 'the first owner'}.` },
      {
        email: result.invitation.email ?? 'the first owner',
        link: result.link,
        mailed: result.mailed,
      },
    );
  });

  // The actions on one invitation or member: each checks the id's shape, acts as the session's
  // principal, and answers with the page and its refusal or a redirect with a notice.
  const actions = [
    {
      path: '/team/invitations/:id/revoke',
      permission: 'team.manage',
      kind: 'invitation',
      unknown: 'No such pending invitation.',
      act: (by: Principal, id: string) => revokeInvitation(deps, by, id),
      notice: 'invitation_revoked',
    },
    {
      path: '/team/members/:id/role',
      permission: 'team.manage',
      kind: 'user',
      unknown: 'No such member.',
      act: (by: Principal, id: string, form: Record<string, string>) => changeRole(deps, by, id, form['role'] ?? ''),
      notice: 'role_changed',
    },
    {
      path: '/team/members/:id/remove',
      permission: 'team.manage',
      kind: 'user',
      unknown: 'No such member.',
      act: (by: Principal, id: string) => removeMember(deps, by, id),
      notice: 'member_removed',
    },
    {
      path: '/team/members/:id/transfer',
      permission: 'team.transfer_ownership',
      kind: 'user',
      unknown: 'No such member.',
      act: (by: Principal, id: string) => transferOwnership(deps, by, id),
      notice: 'ownership_transferred',
    },
  ] as const;
  for (const action of actions) {
    dashboard.post<WithId>(action.path, sessionRoute(action.permission), async (request, reply) => {
      if (!isIdOf(action.kind, request.params.id)) throw new DashboardError(404, action.unknown);
      const result = await action.act(signedIn(request).principal, request.params.id, formOf(request));
      if (!result.ok) return refused(request, reply, result);
      return redirect(reply, `/dashboard/team?notice=${action.notice}`);
    });
  }
}

/** Whether this session may act on a member with role `role` (an admin may not touch an owner). */
function mayTouch(frame: Frame, role: Role): boolean {
  const actor = frame.principal.actor;
  return frame.may('team.manage') && !(actor.kind === 'user' && actor.role !== 'owner' && role === 'owner');
}

function memberRow(frame: Frame, m: Member): SafeHtml {
  const actor = frame.principal.actor;
  const self = actor.kind === 'user' && actor.userId === m.id;
  const roles = actor.kind === 'user' && actor.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  return html`<tr id="member-${m.id}">
    <td data-label="E-mail">${m.email}${self ? html` <span class="muted">(you)</span>` : ''}</td>
    <td data-label="Role" class="member-role">${m.role}</td>
    <td data-label="Joined">${when(m.createdAt)}</td>
    <td data-label="Actions">
      ${
        mayTouch(frame, m.role)
          ? html`<form class="inline role-form" method="post" action="/dashboard/team/members/${m.id}/role">
                ${csrfField(frame.csrfToken)}
                <label
                  >Role
                  <select name="role">
                    ${roles.map((r) => option(r, r, m.role))}
                  </select>
                </label>
                <button type="submit" class="secondary">Change role</button>
              </form>
              <form class="inline remove-form" method="post" action="/dashboard/team/members/${m.id}/remove">
                ${csrfField(frame.csrfToken)}<button type="submit" class="danger">Remove</button>
              </form>`
          : ''
      }
      ${
        frame.may('team.transfer_ownership') && !self && m.role !== 'owner'
          ? html`<form class="inline transfer-form" method="post" action="/dashboard/team/members/${m.id}/transfer">
              ${csrfField(frame.csrfToken)}<button type="submit" class="secondary">Make owner (you become admin)</button>
            </form>`
          : ''
      }
    </td>
  </tr>`;
}

function teamPage(
  frame: Frame,
  team: Awaited<ReturnType<typeof listTeam>>,
  notice: Notice,
  invited?: { email: string; link: string; mailed: boolean },
): string {
  const actor = frame.principal.actor;
  const invitable = actor.kind === 'user' && actor.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  return page(
    frame,
    'Team',
    notice,
    html`${
        invited === undefined
          ? ''
          : html`<section class="card" id="invitation-link">
              <h2>Invitation link for ${invited.email}</h2>
              <p>
                ${invited.mailed ? 'It was mailed; you can also copy it.' : 'Copy it and send it to them: it is shown only now.'}
                It works once, for 7 days.
              </p>
              <div class="link-url">
                <code id="invite-url">${invited.link}</code>
                <button type="button" class="copy secondary" hidden data-copy="${invited.link}" data-copied="Copied">
                  Copy link
                </button>
              </div>
            </section>`
      }
      <section class="card">
        <h2>Members</h2>
        <table class="stack" id="members">
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
              <th>Joined</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            ${team.members.map((m) => memberRow(frame, m))}
          </tbody>
        </table>
        ${team.members.length === 0 ? html`<p class="muted">No people yet: see docs/team.md, "First start".</p>` : ''}
      </section>
      <section class="card">
        <h2>Pending invitations</h2>
        ${
          team.invitations.length === 0
            ? html`<p class="muted" id="no-invitations">None.</p>`
            : html`<table class="stack" id="invitations">
                <thead>
                  <tr>
                    <th>E-mail</th>
                    <th>Role</th>
                    <th>Expires</th>
                    <th>Actions</th>
                  </tr>
                </thead>
                <tbody>
                  ${team.invitations.map(
                    (i) =>
                      html`<tr id="invitation-${i.id}">
                        <td data-label="E-mail">${i.email ?? '(asked at set-up)'}</td>
                        <td data-label="Role">${i.role}</td>
                        <td data-label="Expires">${when(i.expiresAt)}</td>
                        <td data-label="Actions">
                          ${
                            mayTouch(frame, i.role)
                              ? html`<form
                                  class="inline revoke-form"
                                  method="post"
                                  action="/dashboard/team/invitations/${i.id}/revoke"
                                >
                                  ${csrfField(frame.csrfToken)}<button type="submit" class="danger">Revoke</button>
                                </form>`
                              : ''
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
      ${
        frame.may('team.manage')
          ? html`<section class="card">
              <h2>Invite someone</h2>
              <form class="filters" method="post" action="/dashboard/team/invitations" id="invite-form">
                ${csrfField(frame.csrfToken)}
                <label>E-mail <input type="email" name="email" id="invite-email" required maxlength="254" /></label>
                <label
                  >Role
                  <select name="role" id="invite-role">
                    ${invitable.map((r) => option(r, r, 'viewer'))}
                  </select>
                </label>
                <button type="submit" id="invite">Invite</button>
              </form>
            </section>`
          : ''
      }
      ${COPY_SCRIPT_ELEMENT}`,
  );
}
