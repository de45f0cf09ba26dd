import type { ChargeOwner, ChargeSnapshot } from '../../connectors/core/connector.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import type { Queryable, Store } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import { insertEvent } from '../events/index.ts';
import { captureEntry, latePaymentEntry, postEntry, reversalEntry } from '../ledger/index.ts';
import { findMerchantSettings } from '../merchants/index.ts';
import {
  findAttemptOwner,
  findAttemptState,
  findIssuedAttempt,
  findLivePaymentIdByReference,
  lockPayment,
  recordLateProviderReference,
  updateAttemptFromProvider,
  updatePaymentLifecycle,
  committedRefundsMinor,
} from './payment-repo.ts';
import type { CancellationReason, Payment } from './payment-types.ts';
import { paymentView } from './payment-view.ts';
import { acceptsLatePayment, decideProviderUpdate, type PaymentEventType, type PaymentStep } from './provider-update.ts';
import type { LifecycleDeps } from '../../kernel/index.ts';

/**
 * Applies lifecycle changes to payments: provider reports (notifications, status syncs, answers to
 * our close calls) and our own closes (cancel, expiry). Each change is one transaction that locks
 * the payment row, decides from the fresh state (provider-update.ts), writes the payment with
 * `version + 1` per step, writes one event per step, and records the provider's view on the
 * attempt. Nothing here calls a provider: callers do that before, outside any transaction.
 */

export type ApplyResult =
  | { status: 'processed'; outcome: string; paymentId: string }
  | { status: 'ignored'; outcome: string; paymentId?: string }
  | { status: 'deferred'; outcome: string; paymentId: string };

export type ReportSource = 'notification' | 'sync' | 'sweeper' | 'cancel';

/**
 * Who a provider's snapshot is about: the owner it echoes, or, for a provider that echoes none,
 * the owner of the attempt it names on this connector (undefined: no such attempt here).
 */
export async function resolveSnapshotOwner(
  store: Store,
  connector: string,
  snapshot: ChargeSnapshot,
): Promise<ChargeOwner | undefined> {
  if (snapshot.owner !== null) return snapshot.owner;
  const found = await findAttemptOwner(store, connector, snapshot.attemptId);
  return found === undefined
    ? undefined
    : { merchantId: found.merchantId, environment: found.environment, paymentId: found.paymentId };
}

export async function applyProviderSnapshot(
  deps: LifecycleDeps,
  connector: string,
  snapshot: ChargeSnapshot,
  source: ReportSource,
): Promise<ApplyResult> {
  const owner = await resolveSnapshotOwner(deps.store, connector, snapshot);
  if (owner === undefined) return { status: 'ignored', outcome: 'unknown attempt for this connector' };
  const { merchantId, environment, paymentId } = owner;
  const settings = await findMerchantSettings(deps.store, merchantId);
  // Round 2 only happens when accepting a late payment collided with a newer live payment on the
  // same reference_no (a race the pre-check can miss): then the money is marked for refund.
  for (let round = 1; round <= 2; round += 1) {
    try {
      return await deps.store.transaction(async (tx): Promise<ApplyResult> => {
        const payment = await lockPayment(tx, merchantId, environment, paymentId);
        if (payment === undefined) return { status: 'ignored', outcome: 'unknown payment' };
        const attempt = await findAttemptState(tx, merchantId, environment, paymentId, snapshot.attemptId);
        if (attempt === undefined || attempt.connector !== connector) {
          return { status: 'ignored', outcome: 'unknown attempt for this connector', paymentId };
        }
        const now = deps.clock.now();
        const input = { payment, attempt, snapshot, policy: settings.latePaymentPolicy, acceptBlocked: round > 1, now };
        let decision = decideProviderUpdate(input);
        if (acceptsLatePayment(decision)) {
          const live = await findLivePaymentIdByReference(tx, merchantId, environment, payment.referenceNo);
          if (live !== undefined && live !== payment.id) decision = decideProviderUpdate({ ...input, acceptBlocked: true });
        }
        if (decision.kind === 'stale') return { status: 'ignored', outcome: decision.outcome, paymentId };
        if (decision.kind === 'defer') return { status: 'deferred', outcome: decision.outcome, paymentId };
        await writeSteps(tx, deps, payment, decision.steps);
        const { keepSyncing, ...change } = decision.attempt;
        await updateAttemptFromProvider(tx, attempt.id, { ...change, nextSyncAt: keepSyncing ? attempt.nextSyncAt : null, now });
        if (attempt.latePaymentAt === null && change.latePaymentResolution === 'refund_required') {
          // A late refund goes to the provider by this reference (a failed-over attempt has no other).
          await recordLateProviderReference(tx, attempt.id, snapshot.providerReference);
        }
        if (decision.steps.length > 0) {
          deps.log.info(
            {
              payment_id: paymentId,
              attempt_id: attempt.id,
              source,
              outcome: decision.outcome,
              provider_sequence: snapshot.sequence,
            },
            'payment changed by provider report',
          );
        }
        return { status: 'processed', outcome: decision.outcome, paymentId };
      });
    } catch (error) {
      if (round === 1 && isUniqueViolation(error, 'payments_live_reference_no')) continue;
      throw error;
    }
  }
  throw new Error('unreachable: the second round never retries');
}

export type CloseResult =
  { kind: 'closed'; payment: Payment } | { kind: 'not_pending'; payment: Payment } | { kind: 'not_found' };

/**
 * Closes a pending payment as `expired` (the sweeper) or `canceled` (the merchant). The provider
 * was asked to close the charge before this is called; its answer (if any) is recorded on the
 * attempt so that the provider's own "closed" notification arriving later is recognised as old.
 */
export async function closePendingPayment(
  deps: LifecycleDeps,
  ref: { merchantId: string; environment: Payment['environment']; paymentId: string },
  to: 'expired' | 'canceled',
  providerSnapshot: ChargeSnapshot | null,
  options: {
    cancellationReason?: CancellationReason | null;
    /** Runs in the same transaction after a successful close (cancel finishes its idempotency key here). */
    within?: (tx: Queryable, closed: Payment) => Promise<void>;
  } = {},
): Promise<CloseResult> {
  return deps.store.transaction(async (tx): Promise<CloseResult> => {
    const payment = await lockPayment(tx, ref.merchantId, ref.environment, ref.paymentId);
    if (payment === undefined) return { kind: 'not_found' };
    if (payment.status !== 'pending') return { kind: 'not_pending', payment };
    const now = deps.clock.now();
    const after: Payment = {
      ...payment,
      status: to,
      closedAt: now,
      cancellationReason: to === 'canceled' ? (options.cancellationReason ?? null) : payment.cancellationReason,
      amountPaidMinor: providerSnapshot?.amountPaidMinor ?? payment.amountPaidMinor,
      version: payment.version + 1,
      updatedAt: now,
    };
    await writeSteps(tx, deps, payment, [{ event: to === 'expired' ? 'payment.expired' : 'payment.canceled', after }]);
    const attempt = await findIssuedAttempt(tx, ref.merchantId, ref.environment, ref.paymentId);
    if (attempt !== undefined) {
      await updateAttemptFromProvider(tx, attempt.id, {
        status: to,
        providerStatus: providerSnapshot?.status ?? attempt.providerStatus ?? 'unknown',
        providerSequence: Math.max(attempt.providerSequence, providerSnapshot?.sequence ?? 0),
        amountPaidMinor: providerSnapshot?.amountPaidMinor ?? attempt.amountPaidMinor,
        paidAt: attempt.paidAt,
        latePaymentAt: attempt.latePaymentAt,
        latePaymentResolution: attempt.latePaymentResolution,
        nextSyncAt: null,
        now,
      });
    }
    await options.within?.(tx, after);
    return { kind: 'closed', payment: after };
  });
}

/** Writes each step (version + 1 each, fenced) with its event, in the caller's transaction. */
async function writeSteps(tx: Queryable, deps: LifecycleDeps, before: Payment, steps: readonly PaymentStep[]): Promise<void> {
  let current = before;
  for (const s of steps) {
    // The row is locked by this transaction, so the fenced update cannot lose.
    assert(await updatePaymentLifecycle(tx, current, s.after), `payment ${current.id} changed under its lock`);
    await insertPaymentEvent(tx, deps.publicBaseUrl, s.event, current, s.after);
    await postPaymentMovement(tx, s);
    if (s.event === 'payment.succeeded') await deps.paymentSucceeded?.(tx, s.after, s.after.updatedAt);
    current = s.after;
  }
}

/**
 * The ledger entry of a payment step (docs/money.md), in the step's transaction: a success
 * captures what the payer paid into the merchant's pending balance; a late payment the merchant
 * does not get is owed to the payer; a reversal takes back what is left of the capture (captured
 * minus succeeded and pending refunds) from pending, or from available once settled.
 */
async function postPaymentMovement(tx: Queryable, step: PaymentStep): Promise<void> {
  const p = step.after;
  const scope = { merchantId: p.merchantId, environment: p.environment, currency: p.currency, now: p.updatedAt };
  if (step.event === 'payment.succeeded' && p.amountPaidMinor > 0n) {
    await postEntry(tx, captureEntry(scope, p.id, p.amountPaidMinor));
  }
  const late = p.latePayment;
  if (step.event === 'payment.late_payment_received' && late?.resolution === 'refund_required') {
    // The payer's money, not the merchant's: owed back to the payer until refunded.
    const amountMinor = BigInt(late.amount_minor);
    if (amountMinor > 0n) await postEntry(tx, latePaymentEntry(scope, late.attempt_id, p.id, amountMinor));
  }
  if (step.event === 'payment.reversed') {
    // Refunds still pending keep their hold: if one fails later, its held amount goes to the
    // provider too (refund-outcome.ts), so the reversal takes only what is not held.
    const { pending } = await committedRefundsMinor(tx, p.id);
    const remaining = p.amountPaidMinor - p.amountRefundedMinor - pending;
    const from = p.settledAt === null ? 'merchant_pending' : 'merchant_available';
    if (remaining > 0n) await postEntry(tx, reversalEntry(scope, p.id, remaining, from));
  }
}

/** Fields that change with every write and say nothing about what changed. */
const NOT_DIFFED: ReadonlySet<string> = new Set(['version', 'updated_at']);

export async function insertPaymentEvent(
  tx: Queryable,
  publicBaseUrl: string,
  type: PaymentEventType,
  before: Payment,
  after: Payment,
): Promise<void> {
  const view = paymentView(after, publicBaseUrl);
  const previous = paymentView(before, publicBaseUrl) as Record<string, unknown>;
  const previousAttributes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(view)) {
    if (!NOT_DIFFED.has(key) && JSON.stringify(value) !== JSON.stringify(previous[key])) previousAttributes[key] = previous[key];
  }
  await insertEvent(tx, {
    merchantId: after.merchantId,
    environment: after.environment,
    type,
    objectType: 'payment',
    objectId: after.id,
    objectVersion: after.version,
    apiVersion: after.apiVersion,
    object: view,
    previousAttributes,
    now: after.updatedAt,
  });
}
