import type { AuditRecord } from './audit-log.ts';

/** The API's `audit_entry` (docs/audit-log.md "Row shape"). */
export function auditEntryView(r: AuditRecord) {
  return {
    id: r.id,
    object: 'audit_entry' as const,
    action: r.action,
    outcome: r.outcome,
    environment: r.environment,
    target: { type: r.objectType, id: r.objectId },
    actor: r.actor,
    address: r.address,
    user_agent: r.userAgent,
    request_id: r.requestId,
    changes: r.changes,
    occurred_at: r.occurredAt.toISOString(),
  };
}
