import { callProvider } from '../../connectors/core/provider-call.ts';
import type { Connector, RefundOutcome } from '../../connectors/core/connector.ts';
import type { Queryable } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import { insertEvent } from '../events/index.ts';
import { postEntry, refundPostEntry, refundVoidEntry, reversalOfHeldRefundEntry } from '../ledger/index.ts';
import { type Payment, findAttemptState, lockPayment } from '../payments/index.ts';
import { addRefundedToPayment, findRefund, lockRefund, updateRefund } from './refund-repo.ts';
import { REFUND_TRANSITIONS, type Refund } from './refund-types.ts';
import { refundView } from './refund-view.ts';
import type { LifecycleDeps } from '../../kernel/index.ts';

/**
 * Records what a provider said about a refund: the answer to our request, a re-send by the sync
 * job, or a notification. One transaction locks the payment, then the refund, and changes a
 * pending refund once; a refund that already ended is left alone, so the same final answer
 * arriving twice (sync and notification) changes nothing.
 *
 * - succeeded: refund `succeeded`, `refund_post`, the payment's `amount_refunded` grows (version + 1),
 *   `refund.succeeded`;
 * - refused: refund `failed`, `refund_void` back to the balance it was held from (to available if
 *   the payment settled since; to the provider if the payment was reversed since; a refund of late
 *   money always back to `payer_refund_due`), `refund.failed`;
 * - pending: the provider's refund id is kept; the refund stays pending for the sync job;
 * - unknown: nothing changes.
 */
export type RefundChange = { kind: 'changed' | 'unchanged'; refund: Refund } | { kind: 'not_found' };

export async function applyRefundOutcome(
  deps: LifecycleDeps,
  ref: { merchantId: string; environment: Refund['environment']; refundId: string },
  outcome: RefundOutcome,
  /** Runs in the same transaction with the refund as it ends up (the request finishes its key here). */
  within?: (tx: Queryable, refund: Refund) => Promise<void>,
): Promise<RefundChange> {
  const unlocked = await findRefund(deps.store, ref.merchantId, ref.environment, ref.refundId);
  if (unlocked === undefined) return { kind: 'not_found' };
  return deps.store.transaction(async (tx): Promise<RefundChange> => {
    // Lock order: the payment, then the refund (as the refund request and reversals do).
    const payment = await lockPayment(tx, ref.merchantId, ref.environment, unlocked.paymentId);
    const refund = await lockRefund(tx, ref.merchantId, ref.environment, ref.refundId);
    assert(payment !== undefined && refund !== undefined, `refund ${ref.refundId} or its payment vanished`);
    const after = nextRefund(refund, outcome, deps.clock.now());
    if (after === refund) {
      await within?.(tx, refund);
      return { kind: 'unchanged', refund };
    }
    assert(await updateRefund(tx, refund, after), `refund ${refund.id} changed under its lock`);
    if (after.status !== refund.status) await recordFinalRefund(tx, payment, refund, after);
    await within?.(tx, after);
    return { kind: after.status === refund.status ? 'unchanged' : 'changed', refund: after };
  });
}

/** The refund after the provider's answer (the same object when nothing changes). */
function nextRefund(refund: Refund, outcome: RefundOutcome, now: Date): Refund {
  if (refund.status !== 'pending') return refund;
  switch (outcome.kind) {
    case 'unknown':
      return refund;
    case 'pending':
      return refund.providerRefundId === outcome.providerRefundId
        ? refund
        : { ...refund, providerRefundId: outcome.providerRefundId };
    case 'succeeded':
      return {
        ...refund,
        status: 'succeeded',
        providerRefundId: outcome.providerRefundId,
        version: refund.version + 1,
        nextSyncAt: null,
        updatedAt: now,
        completedAt: now,
      };
    case 'refused':
      return {
        ...refund,
        status: 'failed',
        failureCode: outcome.code,
        failureMessage: outcome.message,
        version: refund.version + 1,
        nextSyncAt: null,
        updatedAt: now,
        completedAt: now,
      };
  }
}

async function recordFinalRefund(tx: Queryable, payment: Payment, before: Refund, after: Refund): Promise<void> {
  assert(REFUND_TRANSITIONS[before.status].includes(after.status), `refund ${before.id}: ${before.status} -> ${after.status}`);
  const now = after.updatedAt;
  const scope = { merchantId: after.merchantId, environment: after.environment, currency: after.currency, now };
  const ref = { refundId: after.id, paymentId: after.paymentId };
  const late = after.heldFrom === 'payer_refund_due';
  if (after.status === 'succeeded') {
    await postEntry(tx, refundPostEntry(scope, ref, after.amountMinor));
    // amount_refunded counts captured money given back; late money was never the payment's.
    if (!late) await addRefundedToPayment(tx, payment.id, after.amountMinor, now);
  } else if (late) {
    // Still the payer's: owed to them again, whatever became of the payment meanwhile.
    await postEntry(tx, refundVoidEntry(scope, ref, after.amountMinor, 'payer_refund_due'));
  } else if (payment.status === 'reversed') {
    await postEntry(tx, reversalOfHeldRefundEntry(scope, ref, after.amountMinor));
  } else {
    // Held from pending but the payment settled since: the pending part has moved to available.
    const backTo = payment.settledAt !== null ? 'merchant_available' : after.heldFrom;
    await postEntry(tx, refundVoidEntry(scope, ref, after.amountMinor, backTo));
  }
  await insertEvent(tx, {
    merchantId: after.merchantId,
    environment: after.environment,
    type: after.status === 'succeeded' ? 'refund.succeeded' : 'refund.failed',
    objectType: 'refund',
    objectId: after.id,
    objectVersion: after.version,
    apiVersion: payment.apiVersion,
    object: refundView(after),
    previousAttributes:
      after.status === 'succeeded'
        ? { status: before.status, completed_at: null }
        : { status: before.status, failure_code: null, failure_message: null, completed_at: null },
    now,
  });
}

/**
 * Sends (or re-sends: the provider answers a known refund id with that refund's current state) a
 * refund to its provider, outside any transaction. A throw is an unknown outcome.
 */
export async function sendRefund(
  deps: LifecycleDeps & { connectorTimeoutMs: number },
  connector: Connector,
  refund: Refund,
): Promise<RefundOutcome> {
  const attempt = await findAttemptState(deps.store, refund.merchantId, refund.environment, refund.paymentId, refund.attemptId);
  // The charge the money arrived on: the issued one, or the one a late payment arrived on.
  const providerReference = attempt?.providerReference ?? attempt?.lateProviderReference ?? null;
  if (providerReference === null) {
    return { kind: 'unknown', code: 'attempt_missing', message: 'the paid attempt has no provider reference' };
  }
  return callProvider(deps, 'refund', { refund_id: refund.id }, (ctx) =>
    connector.refund(
      {
        refundId: refund.id,
        attemptId: refund.attemptId,
        providerReference,
        amountMinor: refund.amountMinor,
        currency: refund.currency,
        reason: refund.reason,
      },
      ctx,
    ),
  );
}
