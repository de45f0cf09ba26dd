import type { Queryable, Store } from '../../db/store.ts';
import { insertEvent } from '../events/index.ts';
import {
  type NewSettlementException,
  recordException,
  resolveSettlementException,
  type ResolveResult,
  type SettlementException,
} from './settlement-exception-repo.ts';
import { settlementExceptionView } from './settlement-exception-view.ts';
import { recordAudit } from '../audit/index.ts';
import type { Actor } from '../../kernel/index.ts';

/**
 * Settlement exceptions and what their merchant is told (docs/money.md "Settlement exceptions"):
 * `settlement_exception.created` when one is recorded and `settlement_exception.resolved` when an
 * operator resolves it, each in the transaction of the change (the outbox).
 */

/** Records the refused line and announces it; false when it was already recorded (nothing sent). */
export async function recordSettlementException(tx: Queryable, e: NewSettlementException): Promise<boolean> {
  const stored = await recordException(tx, e);
  if (stored === undefined) return false;
  await announce(tx, stored, 'settlement_exception.created', {}, e.now);
  return true;
}

/** Resolves the exception (once) and announces it, in one transaction. */
export async function resolveSettlementExceptionAndAnnounce(
  store: Store,
  id: string,
  resolution: string,
  now: Date,
  /** Who resolved it (the operator, from the CLI), for the audit log. */
  by: { actor: Actor },
): Promise<ResolveResult> {
  return store.transaction(async (tx) => {
    const result = await resolveSettlementException(tx, id, resolution, now);
    if (result.kind === 'resolved') {
      const previous = { status: 'open', resolved_at: null, resolution: null };
      await announce(tx, result.exception, 'settlement_exception.resolved', previous, now);
      const e = result.exception;
      await recordAudit(
        tx,
        { merchantId: e.merchantId, environment: e.environment, actor: by.actor },
        {
          action: 'settlement_exception.resolved',
          objectType: 'settlement_exception',
          objectId: e.id,
          changes: { status: { from: 'open', to: 'resolved' } },
          at: now,
        },
      );
    }
    return result;
  });
}

async function announce(
  tx: Queryable,
  e: SettlementException,
  type: 'settlement_exception.created' | 'settlement_exception.resolved',
  previousAttributes: Record<string, unknown>,
  now: Date,
): Promise<void> {
  // A line attributed to nobody is for operators only. A provider's echoed metadata can also name
  // a merchant that does not exist: nobody to tell either.
  if (e.merchantId === null || e.environment === null) return;
  const [merchant] = await tx.query<{ api_version: string }>('SELECT api_version FROM merchants WHERE id = $1', [e.merchantId]);
  if (merchant === undefined) return;
  await insertEvent(tx, {
    merchantId: e.merchantId,
    environment: e.environment,
    type,
    objectType: 'settlement_exception',
    objectId: e.id,
    // Created is version 1, resolved (final) version 2.
    objectVersion: e.status === 'open' ? 1 : 2,
    apiVersion: merchant.api_version,
    object: settlementExceptionView(e),
    previousAttributes,
    now,
  });
}
