/** The public entry of the audit module (docs/audit-log.md). */
export {
  type ActingAs,
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditEntry,
  type AuditQuery,
  type AuditRecord,
  type AuditSubject,
  findAuditRecord,
  listAuditLog,
  recordAudit,
} from './audit-log.ts';
export { auditEntryView } from './audit-view.ts';
