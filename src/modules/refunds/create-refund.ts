import type { Connector } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Queryable } from '../../db/store.ts';
import type { Failpoints } from '../../lib/failpoints.ts';
import { newId } from '../../lib/ids.ts';
import { formatMajorAmount, parseMajorAmount, toMajorNumber } from '../../lib/money.ts';
import {
  type KeyDecision,
  type KeyedOperation,
  deleteStartedKey,
  existingKeyDecision,
  finishKeyWithin,
  getKey,
  holdsLease,
  inProgress,
  keyedOperation,
  startKeyedOperation,
  unlessLeaseLost,
} from '../idempotency/index.ts';
import { type RefundHoldSource, postEntry, refundHoldEntry } from '../ledger/index.ts';
import {
  type AttemptState,
  type Payment,
  committedRefundsMinor,
  findAttemptState,
  findIssuedAttempt,
  findPayment,
  lockPayment,
} from '../payments/index.ts';
import { applyRefundOutcome, sendRefund } from './refund-outcome.ts';
import { findRefund, insertRefund } from './refund-repo.ts';
import type { Refund, RefundReason, RefundSource } from './refund-types.ts';
import { refundView } from './refund-view.ts';
import type { KeyedResult, LifecycleDeps, Principal } from '../../kernel/index.ts';
import { recordAudit } from '../audit/index.ts';

/**
 * POST /payment/{id}/refund without the HTTP (docs/money.md, "Refunds").
 *
 * 1. Checks, then one transaction: lock the payment, check that it has money of the refund's
 *    source (`payment`: it is `succeeded`; `late_payment`: it holds a late payment owed to the
 *    payer) and that the refund fits (succeeded + pending refunds of that source + this ≤ what the
 *    payer paid of it), insert the refund `pending`, hold its amount in the ledger (`refund_hold`
 *    from the merchant's balance, or from `payer_refund_due`). The payment row lock makes
 *    concurrent refunds of one payment queue here, so together they can never exceed it.
 * 2. The provider call, outside any transaction, with the refund id as the provider's
 *    idempotency key.
 * 3. One transaction records the answer (refund-outcome.ts) and finishes the Idempotency-Key.
 *
 * The refund row is the recovery point: the key's resource id names the refund before it exists,
 * so a retry that takes over a crashed run (expired lease) finds the refund and re-sends it to the
 * provider instead of making a second one. A refund still pending after step 3 is finished by the
 * refund sync job or the provider's notification.
 */
export interface RefundDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
  idempotencyLeaseMs: number;
  idempotencyTtlMs: number;
  failpoints: Failpoints;
  /** The first sync of a refund the provider has not finished (then doubling gaps). */
  refundSyncDelayMs: number;
}

export const REFUND_OPERATION = 'payment.refund';

type Failure = Extract<KeyedResult, { kind: 'failure' }>;

const failure = (code: Failure['code'], message: string, details: Failure['details'] = []): Failure => ({
  kind: 'failure',
  code,
  message,
  details,
});
const notFound = () => failure('resource_not_found', 'No such payment.');

export interface RefundInput {
  /** The exact text of the JSON number `amount` (major units), or null for the whole refundable rest. */
  amountText: string | null;
  reason: RefundReason | null;
  /** null: `payment` for a succeeded payment, else `late_payment`. */
  source: RefundSource | null;
}

export async function createRefund(
  deps: RefundDeps,
  principal: Principal,
  paymentId: string,
  input: RefundInput,
  idempotencyKey: string | undefined,
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  let refundId = newId('refund', deps.clock.now().getTime());
  const op = keyedOperation(
    principal,
    REFUND_OPERATION,
    idempotencyKey,
    {
      payment_id: paymentId,
      amount: input.amountText,
      reason: input.reason,
      // Only when given, so that keys stored before sources existed keep their fingerprint.
      ...(input.source === null ? {} : { source: input.source }),
    },
    refundId,
  );
  let decision: KeyDecision | undefined = op === undefined ? undefined : await existingKeyDecision(keyDeps, op);
  if (decision?.kind === 'answer') return decision.result;

  let leaseToken = decision?.kind === 'proceed' ? decision.leaseToken : undefined;
  let refund: Refund | undefined;
  if (op !== undefined && leaseToken !== undefined) {
    // Taking over a crashed run: its refund id is on the key; the refund may already exist.
    const record = await getKey(deps.store, op.scope);
    if (record?.resourceId != null) refundId = record.resourceId;
    refund = await findRefund(deps.store, principal.merchantId, principal.environment, refundId);
  }
  const forget = async () => {
    if (op !== undefined && leaseToken !== undefined) await deleteStartedKey(deps.store, op.scope, leaseToken);
  };

  if (refund === undefined) {
    // Checks before any work: a rejection here stores nothing.
    const checked = await checkRefundable(deps, principal, paymentId, input);
    if (checked.kind === 'failure') {
      await forget();
      return checked;
    }
    if (op !== undefined && decision === undefined) {
      decision = await startKeyedOperation(keyDeps, { ...op, resourceId: refundId });
      if (decision.kind === 'answer') return decision.result;
      leaseToken = decision.leaseToken;
    }
    const held = await holdRefund(deps, principal, refundId, paymentId, input, {
      op,
      leaseToken,
    });
    if (held.kind === 'failure') {
      await forget();
      return held;
    }
    if (held.kind === 'lease_lost') return inProgress(1);
    refund = held.refund;
  }

  const connector = deps.connectors.get(refund.connector);
  const outcome =
    connector === undefined
      ? { kind: 'unknown' as const, code: 'connector_missing', message: 'connector no longer configured' }
      : await sendRefund(deps, connector, refund);
  // Tests kill the process here: the provider answered, nothing of its answer is stored yet.
  deps.failpoints.hit('refund.after_connector');

  let body = '';
  const recorded = await unlessLeaseLost(
    applyRefundOutcome(
      deps,
      { merchantId: principal.merchantId, environment: principal.environment, refundId: refund.id },
      outcome,
      async (tx, after) => {
        body = JSON.stringify(refundView(after));
        await finishKeyWithin(tx, keyDeps, op, leaseToken, { status: 201, body });
      },
    ),
  );
  if (recorded === undefined) return inProgress(1);
  if (recorded.kind === 'not_found') return notFound();
  return { kind: 'response', status: 201, body, replayed: false };
}

/** The checks that need no lock (they are repeated under the lock where state can change). */
async function checkRefundable(
  deps: RefundDeps,
  principal: Principal,
  paymentId: string,
  input: RefundInput,
): Promise<Failure | RefundTarget> {
  const payment = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
  if (payment === undefined) return notFound();
  const amount = parseAmount(payment, input.amountText);
  if (amount.kind === 'failure') return amount;
  return refundTarget(deps, deps.store, payment, input.source);
}

/** Where a refund of `payment` takes its money from, and who gives it back. */
interface RefundTarget {
  kind: 'ok';
  source: RefundSource;
  /** The attempt whose charge holds the money, and its provider reference. */
  attempt: AttemptState;
  connector: Connector;
  /** What the payer paid of this source: refunds of it together never exceed it. */
  paidMinor: bigint;
  heldFrom: RefundHoldSource;
}

/**
 * The refund's source (docs/money.md "Late payment money"): captured money of a succeeded
 * payment, or a late payment owed back to the payer, given back through the attempt it arrived
 * on. Read again under the payment lock before anything is held.
 */
async function refundTarget(
  deps: RefundDeps,
  q: Queryable,
  payment: Payment,
  requested: RefundSource | null,
): Promise<Failure | RefundTarget> {
  const source = requested ?? (payment.status === 'succeeded' ? 'payment' : 'late_payment');
  const late = payment.latePayment?.resolution === 'refund_required' ? payment.latePayment : null;
  if (source === 'payment' && payment.status !== 'succeeded') return notRefundable(payment, source);
  if (source === 'late_payment' && late === null) return notRefundable(payment, source);
  const attempt =
    late !== null && source === 'late_payment'
      ? await findAttemptState(q, payment.merchantId, payment.environment, payment.id, late.attempt_id)
      : await findIssuedAttempt(q, payment.merchantId, payment.environment, payment.id);
  const connector = attempt === undefined ? undefined : deps.connectors.get(attempt.connector);
  const reference = attempt === undefined ? null : (attempt.providerReference ?? attempt.lateProviderReference);
  if (attempt === undefined || reference === null || connector === undefined || !connector.capabilities.supports.refund) {
    return failure('refund_not_supported', "This payment's channel does not support refunds.", [
      { channel: payment.channel, connector: attempt?.connector ?? null },
    ]);
  }
  if (late !== null && source === 'late_payment') {
    return { kind: 'ok', source, attempt, connector, paidMinor: BigInt(late.amount_minor), heldFrom: 'payer_refund_due' };
  }
  const heldFrom = payment.settledAt === null ? 'merchant_pending' : 'merchant_available';
  return { kind: 'ok', source, attempt, connector, paidMinor: payment.amountPaidMinor, heldFrom };
}

function parseAmount(payment: Payment, amountText: string | null): Failure | { kind: 'ok'; amountMinor: bigint | null } {
  if (amountText === null) return { kind: 'ok', amountMinor: null };
  const parsed = parseMajorAmount(amountText, payment.currency);
  if (parsed.ok) return { kind: 'ok', amountMinor: parsed.minor };
  return failure('invalid_request', 'The request has invalid fields.', [
    { field: 'amount', issue: parsed.issue, message: `amount is not a valid ${payment.currency} amount` },
  ]);
}

const notRefundable = (payment: Payment, source: RefundSource): Failure =>
  source === 'payment'
    ? failure(
        'payment_state_conflict',
        `Only a succeeded payment can be refunded; this one is ${payment.status}` +
          (payment.latePayment?.resolution === 'refund_required' ? ' (its late payment: source "late_payment").' : '.'),
        [{ status: payment.status, source }],
      )
    : failure('payment_state_conflict', 'This payment holds no late payment owed to its payer.', [
        { status: payment.status, source, late_payment: payment.latePayment?.resolution ?? null },
      ]);

type HoldResult = { kind: 'held'; refund: Refund } | Failure | { kind: 'lease_lost' };

/** Step 1: under the payment lock, check the limit, insert the refund and hold its amount. */
async function holdRefund(
  deps: RefundDeps,
  principal: Principal,
  refundId: string,
  paymentId: string,
  input: RefundInput,
  key: { op: KeyedOperation | undefined; leaseToken: string | undefined },
): Promise<HoldResult> {
  return deps.store.transaction(async (tx: Queryable): Promise<HoldResult> => {
    const payment = await lockPayment(tx, principal.merchantId, principal.environment, paymentId);
    if (payment === undefined) return notFound();
    if (key.op !== undefined && key.leaseToken !== undefined && !(await holdsLease(tx, key.op.scope, key.leaseToken))) {
      return { kind: 'lease_lost' };
    }
    const target = await refundTarget(deps, tx, payment, input.source);
    if (target.kind === 'failure') return target;
    const { attempt } = target;
    const committed = await committedRefundsMinor(tx, paymentId, target.source);
    const refundable = target.paidMinor - committed.succeeded - committed.pending;
    const amount = parseAmount(payment, input.amountText);
    if (amount.kind === 'failure') return amount;
    const amountMinor = amount.amountMinor ?? refundable;
    const c = payment.currency;
    if (amountMinor <= 0n || amountMinor > refundable) {
      return failure(
        'refund_exceeds_captured',
        refundable <= 0n
          ? 'Nothing of this payment is left to refund.'
          : `At most ${formatMajorAmount(refundable, c)} ${c} of this payment can still be refunded.`,
        [
          {
            field: 'amount',
            refundable: toMajorNumber(refundable > 0n ? refundable : 0n, c),
            refunded: toMajorNumber(committed.succeeded, c),
            pending: toMajorNumber(committed.pending, c),
            currency: c,
          },
        ],
      );
    }
    if (!target.connector.capabilities.supports.partialRefund && amountMinor !== target.paidMinor) {
      return failure('refund_not_supported', "This payment's channel refunds the whole amount only.", [
        { channel: payment.channel, connector: attempt.connector },
      ]);
    }
    const now = deps.clock.now();
    const refund: Refund = {
      id: refundId,
      merchantId: payment.merchantId,
      environment: payment.environment,
      paymentId,
      attemptId: attempt.id,
      connector: attempt.connector,
      amountMinor,
      currency: c,
      status: 'pending',
      reason: input.reason,
      failureCode: null,
      failureMessage: null,
      providerRefundId: null,
      heldFrom: target.heldFrom,
      version: 1,
      nextSyncAt: new Date(now.getTime() + deps.refundSyncDelayMs),
      syncCount: 0,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    await insertRefund(tx, refund);
    await recordAudit(tx, principal, {
      action: 'refund.created',
      objectType: 'refund',
      objectId: refundId,
      changes: { payment_id: paymentId, amount_minor: amountMinor.toString(), currency: c, reason: input.reason },
      at: now,
    });
    // Tests fail here: the audit row is written, the change is not complete; both must vanish.
    deps.failpoints.hit('refund.after_audit');
    const scope = { merchantId: payment.merchantId, environment: payment.environment, currency: c, now };
    await postEntry(tx, refundHoldEntry(scope, { refundId, paymentId }, amountMinor, refund.heldFrom));
    return { kind: 'held', refund };
  });
}
