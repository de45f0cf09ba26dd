import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import {
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditRecord,
  findAuditRecord,
  listAuditLog,
} from '../../../modules/audit/index.ts';
import { html } from '../../pages/html.ts';
import { type Frame, option, page, when } from '../dashboard-layout.ts';
import { PAGE_SIZE, queryOf, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

interface AuditFilters {
  action?: AuditAction;
  actor?: string;
  object?: string;
}

const isAction = (s: string | undefined): s is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(s ?? '');
/** An id typed into a filter: letters, digits and `_` only, else ignored (it cannot match a row). */
const idFilter = (s: string | undefined) => (s !== undefined && /^[A-Za-z0-9_]{1,64}$/.test(s.trim()) ? s.trim() : undefined);

/**
 * The audit log (`GET /dashboard/audit`, docs/audit-log.md): who changed what, newest first, a page
 * at a time, filtered by action, actor id or object id. Owners and admins (`audit.read`), and key sessions.
 */
export function registerAuditScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/audit', sessionRoute('audit.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const q = queryOf(request);
    const filters: AuditFilters = {};
    if (isAction(q['action'])) filters.action = q['action'];
    const actor = idFilter(q['actor_id']);
    if (actor !== undefined) filters.actor = actor;
    const object = idFilter(q['object_id']);
    if (object !== undefined) filters.object = object;
    const after = q['starting_after'];
    // A cursor that is not one of this session's rows starts the list over.
    const cursor =
      after !== undefined && isIdOf('auditEntry', after) ? await findAuditRecord(deps.store, scope.merchantId, after) : undefined;
    const visible = cursor !== undefined && (cursor.environment === null || cursor.environment === scope.environment);
    const listed = await listAuditLog(deps.store, {
      merchantId: scope.merchantId,
      environment: scope.environment,
      limit: PAGE_SIZE,
      ...(filters.action === undefined ? {} : { action: filters.action }),
      ...(filters.actor === undefined ? {} : { actorId: filters.actor }),
      ...(filters.object === undefined ? {} : { objectId: filters.object }),
      ...(visible ? { startingAfter: cursor.id } : {}),
    });
    return send(reply, 200, auditPage(frame('audit'), filters, listed.records, listed.hasMore));
  });
}

/** `{field: {from, to}}` as `field: from → to`, `{field: value}` as `field: value`. */
function changeLines(changes: Record<string, unknown>): string[] {
  return Object.entries(changes).map(([field, value]) => {
    if (value !== null && typeof value === 'object' && 'from' in value && 'to' in value) {
      const v = value as { from: unknown; to: unknown };
      return `${field}: ${JSON.stringify(v.from)} → ${JSON.stringify(v.to)}`;
    }
    return `${field}: ${JSON.stringify(value)}`;
  });
}

function auditPage(frame: Frame, filters: AuditFilters, records: readonly AuditRecord[], hasMore: boolean): string {
  const last = records.at(-1);
  const next = new URLSearchParams({
    ...(filters.action === undefined ? {} : { action: filters.action }),
    ...(filters.actor === undefined ? {} : { actor_id: filters.actor }),
    ...(filters.object === undefined ? {} : { object_id: filters.object }),
    ...(last === undefined ? {} : { starting_after: last.id }),
  });
  return page(
    frame,
    'Audit log',
    undefined,
    html`<section class="card">
        <form class="filters" method="get" action="/dashboard/audit" id="audit-filters">
          <label
            >Action
            <select name="action" id="filter-action">
              ${option('', 'Any', filters.action ?? '')} ${AUDIT_ACTIONS.map((a) => option(a, a, filters.action))}
            </select></label
          >
          <label
            >Actor id <input name="actor_id" id="filter-actor" value="${filters.actor ?? ''}" placeholder="key_… or usr_…"
          /></label>
          <label
            >Object id <input name="object_id" id="filter-object" value="${filters.object ?? ''}" placeholder="pay_…, we_…"
          /></label>
          <button type="submit">Filter</button>
        </form>
      </section>
      <section class="card">
        ${
          records.length === 0
            ? html`<p id="no-audit-entries">No entries.</p>`
            : html`<table id="audit-entries">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Who</th>
                    <th>Role</th>
                    <th>From</th>
                    <th>Action</th>
                    <th>Object</th>
                    <th>Changes</th>
                  </tr>
                </thead>
                <tbody>
                  ${records.map(
                    (r) =>
                      html`<tr data-audit-id="${r.id}">
                        <td>${when(r.occurredAt)}</td>
                        <td><span class="mono">${r.actor.label}</span><br /><span class="muted">${r.actor.type}</span></td>
                        <td>${r.actor.role ?? '—'}</td>
                        <td>${r.address ?? '—'}</td>
                        <td>
                          <code>${r.action}</code
                          >${r.outcome === 'failed' ? html` <span class="status s-failed">failed</span>` : ''}
                        </td>
                        <td>${r.objectId === null ? (r.objectType ?? '—') : html`<span class="mono">${r.objectId}</span>`}</td>
                        <td>${changeLines(r.changes).map((line) => html`<div class="mono">${line}</div>`)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${hasMore && last !== undefined ? html`<p class="pager"><a id="next-page" href="/dashboard/audit?${next.toString()}">Next page →</a></p>` : ''}
      </section>`,
  );
}
