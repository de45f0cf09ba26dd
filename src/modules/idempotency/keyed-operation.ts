import { randomToken } from '../../lib/random.ts';
import type { Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { fingerprint } from './fingerprint.ts';
import {
  claimExpiredLease,
  finishKey,
  getKey,
  holdsLease,
  type IdempotencyRecord,
  type IdempotencyScope,
  insertStartedKey,
} from './idempotency-repo.ts';
import type { KeyedResult } from '../../kernel/index.ts';

/**
 * The keyed-operation pipeline every POST with an Idempotency-Key runs on (docs/idempotency.md):
 * validate → load or lease the key → decide → persist → call the provider → persist the result →
 * answer. This file is the key's part of it, shared by create, cancel, refund and reconcile:
 * the one decision on an existing key (replay, refuse, take over), taking a new key, the lease
 * that fences every later write, and the answer from the key when someone else finished.
 *
 * Create adds recovery points (create-payment.ts): its run spans several transactions around the
 * provider call. Cancel, refund and reconcile finish their key in the same transaction as their
 * state change, so a crash leaves a started key whose lease expires and a retry runs again.
 */

export interface KeyedOperation {
  scope: IdempotencyScope;
  fingerprint: string;
  resourceId: string;
}

/** The keyed operation of a request with an `Idempotency-Key` (undefined without one). */
export function keyedOperation(
  principal: { merchantId: string; environment: IdempotencyScope['environment'] },
  operation: string,
  key: string | undefined,
  request: unknown,
  resourceId: string,
): KeyedOperation | undefined {
  if (key === undefined) return undefined;
  return {
    scope: { merchantId: principal.merchantId, environment: principal.environment, operation, key },
    fingerprint: fingerprint(operation, request),
    resourceId,
  };
}

export type KeyDecision = { kind: 'proceed'; leaseToken: string; fresh: boolean } | { kind: 'answer'; result: KeyedResult };

export const inProgress = (seconds: number): Extract<KeyedResult, { kind: 'failure' }> => ({
  kind: 'failure',
  code: 'idempotency_request_in_progress',
  message: 'A request with this Idempotency-Key is still running.',
  details: [],
  retryAfterSeconds: seconds,
});

const keyReused: KeyedResult = {
  kind: 'failure',
  code: 'idempotency_key_reused',
  message: 'This Idempotency-Key was used with a different request body.',
  details: [{ field: 'Idempotency-Key', issue: 'idempotency_key_reused', message: 'use a new key for a different request' }],
};

/**
 * The one decision on an existing key: a different request is refused, a finished one replayed,
 * a running one answered "in progress", and an abandoned one (its lease expired) taken over with a
 * new lease — by exactly one of the retries racing for it.
 */
export async function decideOnExistingKey(
  deps: { store: Store; clock: Clock; leaseMs: number },
  scope: IdempotencyScope,
  record: IdempotencyRecord,
  requestFingerprint: string,
): Promise<KeyDecision> {
  if (record.fingerprint !== requestFingerprint) return { kind: 'answer', result: keyReused };
  if (record.status === 'finished') return { kind: 'answer', result: replayOf(record) };
  const now = deps.clock.now();
  if (record.lockedUntil !== null && record.lockedUntil > now) {
    return { kind: 'answer', result: inProgress(Math.max(1, Math.ceil((record.lockedUntil.getTime() - now.getTime()) / 1000))) };
  }
  const leaseToken = randomToken(12);
  const claimed = await claimExpiredLease(deps.store, scope, {
    seenToken: record.leaseToken,
    newToken: leaseToken,
    lockedUntil: new Date(now.getTime() + deps.leaseMs),
    now,
  });
  return claimed ? { kind: 'proceed', leaseToken, fresh: false } : { kind: 'answer', result: inProgress(1) };
}

const replayOf = (record: Extract<IdempotencyRecord, { status: 'finished' }>): KeyedResult => ({
  kind: 'response',
  status: record.responseStatus,
  body: record.responseBody,
  replayed: true,
});

/**
 * Looks at an existing key (see decideOnExistingKey). `undefined` when the key is new (the caller
 * validates, then calls startKeyedOperation: rejections store nothing).
 */
export async function existingKeyDecision(
  deps: { store: Store; clock: Clock; leaseMs: number },
  op: KeyedOperation,
): Promise<KeyDecision | undefined> {
  const record = await getKey(deps.store, op.scope);
  if (record === undefined) return undefined;
  return decideOnExistingKey(deps, op.scope, record, op.fingerprint);
}

/** Someone else finished (or holds) this request: answer from what the key says now. */
export async function answerFromKey(store: Store, scope: IdempotencyScope): Promise<KeyedResult> {
  const record = await getKey(store, scope);
  return record?.status === 'finished' ? replayOf(record) : inProgress(1);
}

/** Takes a new key. If another request took it first, answers as that request's key says. */
export async function startKeyedOperation(
  deps: { store: Store; clock: Clock; leaseMs: number; ttlMs: number },
  op: KeyedOperation,
): Promise<KeyDecision> {
  const now = deps.clock.now();
  const leaseToken = randomToken(12);
  const inserted = await insertStartedKey(deps.store, op.scope, {
    fingerprint: op.fingerprint,
    recoveryPoint: 'started',
    resourceId: op.resourceId,
    leaseToken,
    lockedUntil: new Date(now.getTime() + deps.leaseMs),
    now,
    expiresAt: new Date(now.getTime() + deps.ttlMs),
  });
  if (inserted) return { kind: 'proceed', leaseToken, fresh: true };
  return (await existingKeyDecision(deps, op)) ?? { kind: 'answer', result: inProgress(1) };
}

/** Thrown inside a fenced transaction when a retry took our lease over: it rolls back. */
export class LeaseLost extends Error {}

/** Runs `fn` in a transaction that commits only while we still hold the key's lease. */
export async function withLease<T>(
  store: Store,
  scope: IdempotencyScope,
  leaseToken: string,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  return store.transaction(async (tx) => {
    if (!(await holdsLease(tx, scope, leaseToken))) throw new LeaseLost();
    return fn(tx);
  });
}

/**
 * Finishes the key with the response inside the transaction of the state change, so both commit
 * or neither. Without a key (or a lease) there is nothing to finish. Our lease taken over by a
 * retry throws LeaseLost: the change rolls back and that retry's answer stands.
 */
export async function finishKeyWithin(
  tx: Queryable,
  deps: { clock: Clock; ttlMs: number },
  op: KeyedOperation | undefined,
  leaseToken: string | undefined,
  response: { status: number; body: string },
): Promise<void> {
  if (op === undefined || leaseToken === undefined) return;
  const now = deps.clock.now();
  const finished = await finishKey(tx, op.scope, {
    leaseToken,
    responseStatus: response.status,
    responseBody: response.body,
    now,
    expiresAt: new Date(now.getTime() + deps.ttlMs),
  });
  if (!finished) throw new LeaseLost();
}

/** The result of a finishing transaction, or undefined when it rolled back for LeaseLost. */
export async function unlessLeaseLost<T>(run: Promise<T>): Promise<T | undefined> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof LeaseLost) return undefined;
    throw error;
  }
}
