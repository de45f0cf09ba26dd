import { guardOf, type Statement } from '../../db/statement.ts';
import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';
import { planStable } from '../../db/plan-stable.ts';

/**
 * The idempotency record (see docs/idempotency.md). The primary key is the lock that makes
 * concurrent first requests race safely; the lease token fences who may finish a started request.
 */
export interface IdempotencyScope {
  merchantId: string;
  environment: Environment;
  operation: string;
  key: string;
}

export type IdempotencyRecord =
  | { status: 'finished'; fingerprint: string; responseStatus: number; responseBody: string; resourceId: string | null }
  | {
      status: 'started';
      fingerprint: string;
      recoveryPoint: string;
      resourceId: string | null;
      leaseToken: string | null;
      lockedUntil: Date | null;
    };

export interface KeyRow {
  fingerprint: string;
  status: 'started' | 'finished';
  recovery_point: string;
  resource_id: string | null;
  lease_token: string | null;
  locked_until: Date | null;
  response_status: number | null;
  response_body: string | null;
  [key: string]: unknown;
}

const SCOPE = 'merchant_id = $1 AND environment = $2 AND operation = $3 AND key = $4';
const scopeParams = (s: IdempotencyScope) => [s.merchantId, s.environment, s.operation, s.key];

/** Inserts a started record. False if the key already exists (another request owns it). */
export interface StartedKey {
  fingerprint: string;
  recoveryPoint: string;
  resourceId: string;
  leaseToken: string;
  lockedUntil: Date;
  now: Date;
  expiresAt: Date;
}

/**
 * The insert of a started key; an existing key makes it insert nothing and return no row (the
 * create path guards its payment and attempt inserts on that, docs/idempotency.md).
 */
export function insertStartedKeyStatement(scope: IdempotencyScope, r: StartedKey): Statement {
  return {
    text: `INSERT INTO idempotency_keys (merchant_id, environment, operation, key, fingerprint, status, recovery_point, resource_id,
       lease_token, locked_until, created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'started', $6, $7, $8, $9, $10, $10, $11) ON CONFLICT DO NOTHING
     RETURNING key`,
    params: [
      ...scopeParams(scope),
      r.fingerprint,
      r.recoveryPoint,
      r.resourceId,
      r.leaseToken,
      r.lockedUntil,
      r.now,
      r.expiresAt,
    ],
  };
}

/** Inserts a started record. False if the key already exists (another request owns it). */
export async function insertStartedKey(q: Queryable, scope: IdempotencyScope, r: StartedKey): Promise<boolean> {
  const s = insertStartedKeyStatement(scope, r);
  return (await q.query(s.text, s.params)).length === 1;
}

/** The key's record, as a statement (the create path reads it in the statement that tries to insert it). */
export function selectKeyStatement(scope: IdempotencyScope): Statement {
  return {
    text: `SELECT fingerprint, status, recovery_point, resource_id, lease_token, locked_until, response_status, response_body
     FROM idempotency_keys WHERE ${SCOPE}`,
    params: scopeParams(scope),
  };
}

/** A key row as a record; undefined for a row without one (an outer join that found nothing). */
export function keyRecordOf(r: Partial<KeyRow> | undefined): IdempotencyRecord | undefined {
  if (r?.fingerprint === undefined || r.fingerprint === null || r.status === undefined) return undefined;
  if (r.status === 'finished') {
    return {
      status: 'finished',
      fingerprint: r.fingerprint,
      responseStatus: r.response_status as number,
      responseBody: r.response_body as string,
      resourceId: r.resource_id ?? null,
    };
  }
  return {
    status: 'started',
    fingerprint: r.fingerprint,
    recoveryPoint: r.recovery_point as string,
    resourceId: r.resource_id ?? null,
    leaseToken: r.lease_token ?? null,
    lockedUntil: r.locked_until ?? null,
  };
}

export async function getKey(q: Queryable, scope: IdempotencyScope): Promise<IdempotencyRecord | undefined> {
  const s = selectKeyStatement(scope);
  return keyRecordOf((await q.query<KeyRow>(planStable(s.text), s.params))[0]);
}

/**
 * Takes over a started key whose lease has expired. Conditional on the token we saw, so of two
 * processes racing for one abandoned key exactly one wins.
 */
export async function claimExpiredLease(
  q: Queryable,
  scope: IdempotencyScope,
  r: { seenToken: string | null; newToken: string; lockedUntil: Date; now: Date },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE idempotency_keys SET lease_token = $5, locked_until = $6, updated_at = $7
     WHERE ${SCOPE} AND status = 'started' AND lease_token IS NOT DISTINCT FROM $8
       AND (locked_until IS NULL OR locked_until <= $7)
     RETURNING key`,
    [...scopeParams(scope), r.newToken, r.lockedUntil, r.now, r.seenToken],
  );
  return rows.length === 1;
}

/** Finishes a started key with its response, only while `leaseToken` holds it (and `guard`). */
export function finishKeyStatement(
  scope: IdempotencyScope,
  r: { leaseToken: string; responseStatus: number; responseBody: string; now: Date; expiresAt: Date },
  guard?: string,
): Statement {
  return {
    text: `UPDATE idempotency_keys SET status = 'finished', recovery_point = 'finished', response_status = $6,
       response_body = $7, lease_token = NULL, locked_until = NULL, updated_at = $8, expires_at = $9
     WHERE ${SCOPE} AND status = 'started' AND lease_token = $5 AND ${guardOf(guard)}
     RETURNING key`,
    params: [...scopeParams(scope), r.leaseToken, r.responseStatus, r.responseBody, r.now, r.expiresAt],
  };
}

/** Finishes a started key with its response. False if our lease was taken over meanwhile. */
export async function finishKey(
  q: Queryable,
  scope: IdempotencyScope,
  r: { leaseToken: string; responseStatus: number; responseBody: string; now: Date; expiresAt: Date },
): Promise<boolean> {
  const s = finishKeyStatement(scope, r);
  return (await q.query(s.text, s.params)).length === 1;
}

/** Locks our started key for the rest of the statement or transaction; no row if the lease is gone. */
export function lockLeaseStatement(scope: IdempotencyScope, leaseToken: string): Statement {
  return {
    text: `SELECT 1 FROM idempotency_keys WHERE ${SCOPE} AND status = 'started' AND lease_token = $5 FOR UPDATE`,
    params: [...scopeParams(scope), leaseToken],
  };
}

/** Confirms we still hold the lease (inside a transaction that should only commit if we do). */
export async function holdsLease(q: Queryable, scope: IdempotencyScope, leaseToken: string): Promise<boolean> {
  const s = lockLeaseStatement(scope, leaseToken);
  return (await q.query(s.text, s.params)).length === 1;
}

/** Gives the lease up so that a retry can resume at once (after every provider failed). */
export async function releaseLease(q: Queryable, scope: IdempotencyScope, leaseToken: string, now: Date): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET locked_until = $6, updated_at = $6 WHERE ${SCOPE} AND status = 'started' AND lease_token = $5`,
    [...scopeParams(scope), leaseToken, now],
  );
}

/**
 * Embedded store only, at start: this process is the only one that can hold leases, so every
 * lease still held belongs to a dead predecessor.
 */
export async function releaseAllLeases(q: Queryable, now: Date): Promise<number> {
  const rows = await q.query(
    `UPDATE idempotency_keys SET locked_until = $1, updated_at = $1 WHERE status = 'started' AND locked_until > $1 RETURNING key`,
    [now],
  );
  return rows.length;
}

export interface AbandonedKey {
  scope: IdempotencyScope;
  leaseToken: string | null;
  resourceId: string;
}

/** Started creates whose lease has expired and whose payment is older than `createdBefore`. */
export async function findAbandonedCreates(
  q: Queryable,
  r: { now: Date; createdBefore: Date; limit: number },
): Promise<AbandonedKey[]> {
  const rows = await q.query<{
    merchant_id: string;
    environment: Environment;
    operation: string;
    key: string;
    lease_token: string | null;
    resource_id: string;
  }>(
    `SELECT merchant_id, environment, operation, key, lease_token, resource_id FROM idempotency_keys
     WHERE status = 'started' AND operation LIKE 'payment.create%' AND resource_id IS NOT NULL
       AND (locked_until IS NULL OR locked_until <= $1) AND created_at <= $2
     ORDER BY created_at LIMIT $3`,
    [r.now, r.createdBefore, r.limit],
  );
  return rows.map((row) => ({
    scope: { merchantId: row.merchant_id, environment: row.environment, operation: row.operation, key: row.key },
    leaseToken: row.lease_token,
    resourceId: row.resource_id,
  }));
}

/** Retention: deletes finished keys past their expiry, at most `limit` per call. */
export async function deleteExpiredKeys(q: Queryable, now: Date, limit: number): Promise<number> {
  const rows = await q.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (
       SELECT ctid FROM idempotency_keys WHERE status = 'finished' AND expires_at <= $1 LIMIT $2)
     RETURNING key`,
    [now, limit],
  );
  return rows.length;
}

/**
 * Forgets a started key we own, for an operation that ended without changing anything (the
 * provider was unreachable, or the state changed under us): "nothing stored", so a retry with the
 * same key starts afresh.
 */
export async function deleteStartedKey(q: Queryable, scope: IdempotencyScope, leaseToken: string): Promise<void> {
  await q.query(`DELETE FROM idempotency_keys WHERE ${SCOPE} AND status = 'started' AND lease_token = $5`, [
    ...scopeParams(scope),
    leaseToken,
  ]);
}
