import { randomToken } from '../../lib/random.ts';
import type { Queryable, Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CreatePaymentResult } from '../payments/create-payment.ts';
import { fingerprint } from './fingerprint.ts';
import { claimExpiredLease, finishKey, getKey, type IdempotencyScope, insertStartedKey } from './idempotency-repo.ts';

/**
 * Idempotency-Key for the POSTs after create (cancel, refund): the same rules as create
 * (docs/idempotency.md) without recovery points, because these operations finish their key in the
 * same transaction as their state change. A run either commits both or neither, so a crash leaves
 * a started key whose lease expires and a retry simply runs again (the provider call is idempotent;
 * a refund finds the refund its key names, see create-refund.ts).
 */
export type OperationResult = CreatePaymentResult;

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

export type KeyDecision = { kind: 'proceed'; leaseToken: string; fresh: boolean } | { kind: 'answer'; result: OperationResult };

export const inProgress = (seconds: number): Extract<OperationResult, { kind: 'failure' }> => ({
  kind: 'failure',
  code: 'idempotency_request_in_progress',
  message: 'A request with this Idempotency-Key is still running.',
  details: [],
  retryAfterSeconds: seconds,
});

/**
 * Looks at an existing key: replay, refuse, or take over an abandoned run. `undefined` when the key
 * is new (the caller validates, then calls startKeyedOperation: rejections store nothing).
 */
export async function existingKeyDecision(
  deps: { store: Store; clock: Clock; leaseMs: number },
  op: KeyedOperation,
): Promise<KeyDecision | undefined> {
  const record = await getKey(deps.store, op.scope);
  if (record === undefined) return undefined;
  if (record.fingerprint !== op.fingerprint) {
    return {
      kind: 'answer',
      result: {
        kind: 'failure',
        code: 'idempotency_key_reused',
        message: 'This Idempotency-Key was used with a different request.',
        details: [
          { field: 'Idempotency-Key', issue: 'idempotency_key_reused', message: 'use a new key for a different request' },
        ],
      },
    };
  }
  if (record.status === 'finished') {
    return {
      kind: 'answer',
      result: { kind: 'response', status: record.responseStatus, body: record.responseBody, replayed: true },
    };
  }
  const now = deps.clock.now();
  if (record.lockedUntil !== null && record.lockedUntil > now) {
    return { kind: 'answer', result: inProgress(Math.max(1, Math.ceil((record.lockedUntil.getTime() - now.getTime()) / 1000))) };
  }
  const leaseToken = randomToken(12);
  const claimed = await claimExpiredLease(deps.store, op.scope, {
    seenToken: record.leaseToken,
    newToken: leaseToken,
    lockedUntil: new Date(now.getTime() + deps.leaseMs),
    now,
  });
  return claimed ? { kind: 'proceed', leaseToken, fresh: false } : { kind: 'answer', result: inProgress(1) };
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

/** Thrown inside the finishing transaction when a retry took our lease over: it rolls back. */
export class LeaseLost extends Error {}

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
