import type { Store } from '../db/store.ts';
import { AUDIT_ACTIONS, type AuditAction, auditEntryView, listAuditLog } from '../modules/audit/index.ts';
import type { CommandOutput } from './settlement-exceptions.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

/**
 * `tributary audit [--merchant MER_ID] [--action A] [--limit N]` (docs/audit-log.md): the audit log,
 * newest first, of one merchant or of all (and the operator's rows that are no merchant's).
 */
export async function auditCommand(
  store: Store,
  o: { merchant?: string | undefined; action?: string | undefined; limit?: string | undefined },
): Promise<CommandOutput> {
  const limitText = o.limit ?? String(DEFAULT_LIMIT);
  if (!/^\d{1,4}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > MAX_LIMIT) {
    return { ok: false, problem: `--limit must be 1-${MAX_LIMIT}` };
  }
  if (o.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(o.action)) {
    return { ok: false, problem: `--action must be one of: ${AUDIT_ACTIONS.join(', ')}` };
  }
  const page = await listAuditLog(store, {
    limit: Number(limitText),
    ...(o.merchant === undefined ? {} : { merchantId: o.merchant }),
    ...(o.action === undefined ? {} : { action: o.action as AuditAction }),
  });
  const data = page.records.map((r) => ({ ...auditEntryView(r), merchant_id: r.merchantId }));
  const lines = page.records.map((r) => {
    const who = `${r.actor.label}${r.actor.role === null ? '' : ` (${r.actor.role})`}`;
    const object = r.objectId ?? r.objectType ?? '-';
    return [
      r.occurredAt.toISOString(),
      r.merchantId ?? '-',
      r.environment ?? '-',
      who,
      r.address ?? '-',
      r.action,
      object,
      JSON.stringify(r.changes),
    ].join('  ');
  });
  const human = lines.length === 0 ? 'no audit entries' : `${lines.join('\n')}${page.hasMore ? '\n… more: raise --limit' : ''}`;
  return { ok: true, value: { object: 'list', data, has_more: page.hasMore }, human };
}
