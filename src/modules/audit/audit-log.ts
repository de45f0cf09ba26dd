import type { Queryable } from '../../db/store.ts';
import { newId } from '../../lib/ids.ts';
import type { Actor, Environment, Principal, RequestOrigin, Role } from '../../kernel/index.ts';

/**
 * The audit log (docs/audit-log.md, migration 0018): one append-only row per change made by a
 * person, a key or the operator. `recordAudit` is called with the transaction of the change it
 * records, so the row exists exactly when the change committed; a failed change writes none.
 * Nothing secret goes in: the actor is a key's id and prefix or a person's id and e-mail, and
 * `changes` holds names and values of what changed, never a key, a password, a TOTP secret or a
 * payer's personal data.
 */
export const AUDIT_ACTIONS = [
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out',
  'user.two_factor_enrolled',
  'user.recovery_code_used',
  'user.password_changed',
  'member.invited',
  'member.invitation_revoked',
  'member.joined',
  'member.role_changed',
  'member.removed',
  'member.ownership_transferred',
  'api_key.created',
  'api_key.rolled',
  'api_key.revoked',
  'refund.created',
  'payment.canceled',
  'payment.payer_data_erased',
  'event.redelivered',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'callback_secret.rotated',
  'merchant.settings_updated',
  'reconciliation.created',
  'settlement_exception.resolved',
  'checkout.expired',
  'payment_link.created',
  'payment_link.deactivated',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  action: AuditAction;
  /** Defaults to the principal's environment; `null` for what belongs to the merchant (members). */
  environment?: Environment | null;
  outcome?: 'succeeded' | 'failed';
  objectType: string | null;
  objectId: string | null;
  /** What changed, as `{field: value}` or `{field: {from, to}}`; never a secret. */
  changes?: Record<string, unknown>;
  at: Date;
}

/** Who acts and where from, without whom for: a principal, or the operator (the CLI). */
export interface ActingAs {
  actor: Actor;
  origin?: RequestOrigin | undefined;
}

/** Who acted, where from, for whom: a principal, or the parts of one a caller without a principal has. */
export interface AuditSubject {
  /** `null`: an operator's change to what no merchant owns (an unattributed settlement exception). */
  merchantId: string | null;
  environment: Environment | null;
  actor: Actor;
  origin?: RequestOrigin | undefined;
}

export interface AuditRecord {
  id: string;
  merchantId: string | null;
  environment: Environment | null;
  occurredAt: Date;
  action: AuditAction;
  outcome: 'succeeded' | 'failed';
  actor: { type: Actor['kind']; id: string | null; label: string; role: Role | null };
  address: string | null;
  userAgent: string | null;
  requestId: string | null;
  objectType: string | null;
  objectId: string | null;
  changes: Record<string, unknown>;
}

function actorColumns(actor: Actor): { id: string | null; label: string; role: Role | null } {
  switch (actor.kind) {
    case 'api_key':
      return { id: actor.keyId, label: actor.keyPrefix, role: null };
    case 'user':
      return { id: actor.userId, label: actor.email, role: actor.role };
    case 'operator':
    case 'system':
      return { id: null, label: actor.name, role: null };
  }
}

/** Appends one row, in `q` (the change's own transaction). Returns its id. */
export async function recordAudit(q: Queryable, subject: AuditSubject | Principal, entry: AuditEntry): Promise<string> {
  const id = newId('auditEntry', entry.at.getTime());
  const actor = actorColumns(subject.actor);
  const origin = subject.origin;
  await q.query(
    `INSERT INTO audit_log (id, merchant_id, environment, occurred_at, action, outcome, actor_type, actor_id, actor_label,
       actor_role, address, user_agent, request_id, object_type, object_id, changes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [
      id,
      subject.merchantId,
      entry.environment === undefined ? subject.environment : entry.environment,
      entry.at,
      entry.action,
      entry.outcome ?? 'succeeded',
      subject.actor.kind,
      actor.id,
      actor.label,
      actor.role,
      origin?.address ?? null,
      origin?.userAgent ?? null,
      origin?.requestId ?? null,
      entry.objectType,
      entry.objectId,
      JSON.stringify(entry.changes ?? {}),
    ],
  );
  return id;
}

export interface AuditQuery {
  /** Absent: every merchant's rows and the operator's own (the CLI only; the API always names one). */
  merchantId?: string;
  /** Rows of this environment and the merchant-wide ones (members, sign-ins); absent: both environments. */
  environment?: Environment;
  action?: AuditAction;
  actorId?: string;
  objectId?: string;
  /** Inclusive bounds on `occurred_at`. */
  occurredFrom?: Date;
  occurredTo?: Date;
  /** The id of the last row of the previous page (newest first); it must be one the query can see. */
  startingAfter?: string;
  limit: number;
}

interface AuditRow {
  id: string;
  merchant_id: string | null;
  environment: Environment | null;
  occurred_at: Date;
  action: AuditAction;
  outcome: 'succeeded' | 'failed';
  actor_type: Actor['kind'];
  actor_id: string | null;
  actor_label: string;
  actor_role: Role | null;
  address: string | null;
  user_agent: string | null;
  request_id: string | null;
  object_type: string | null;
  object_id: string | null;
  changes: Record<string, unknown>;
  [key: string]: unknown;
}

const recordOf = (r: AuditRow): AuditRecord => ({
  id: r.id,
  merchantId: r.merchant_id,
  environment: r.environment,
  occurredAt: r.occurred_at,
  action: r.action,
  outcome: r.outcome,
  actor: { type: r.actor_type, id: r.actor_id, label: r.actor_label, role: r.actor_role },
  address: r.address,
  userAgent: r.user_agent,
  requestId: r.request_id,
  objectType: r.object_type,
  objectId: r.object_id,
  changes: r.changes,
});

/** One page, newest first, and whether more follow. */
export async function listAuditLog(q: Queryable, query: AuditQuery): Promise<{ records: AuditRecord[]; hasMore: boolean }> {
  const params: unknown[] = [];
  const where: string[] = ['true'];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(clause(`$${params.length}`));
  };
  if (query.merchantId !== undefined) add((n) => `merchant_id = ${n}`, query.merchantId);
  if (query.environment !== undefined) add((n) => `(environment = ${n} OR environment IS NULL)`, query.environment);
  if (query.action !== undefined) add((n) => `action = ${n}`, query.action);
  if (query.actorId !== undefined) add((n) => `actor_id = ${n}`, query.actorId);
  if (query.objectId !== undefined) add((n) => `object_id = ${n}`, query.objectId);
  if (query.occurredFrom !== undefined) add((n) => `occurred_at >= ${n}`, query.occurredFrom);
  if (query.occurredTo !== undefined) add((n) => `occurred_at <= ${n}`, query.occurredTo);
  // The cursor's row is checked by the caller (findAuditRecord); its seq orders the page.
  if (query.startingAfter !== undefined) add((n) => `seq < (SELECT seq FROM audit_log WHERE id = ${n})`, query.startingAfter);
  params.push(query.limit + 1);
  const rows = await q.query<AuditRow>(
    `SELECT * FROM audit_log WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
    params,
  );
  return { records: rows.slice(0, query.limit).map(recordOf), hasMore: rows.length > query.limit };
}

/** The row of an id, when it is this merchant's (a cursor's check). */
export async function findAuditRecord(q: Queryable, merchantId: string, id: string): Promise<AuditRecord | undefined> {
  const rows = await q.query<AuditRow>('SELECT * FROM audit_log WHERE merchant_id = $1 AND id = $2', [merchantId, id]);
  return rows[0] === undefined ? undefined : recordOf(rows[0]);
}
