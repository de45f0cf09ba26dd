import type { Connector } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Queryable } from '../../db/store.ts';
import type { Failpoints } from '../../lib/failpoints.ts';
import { newId } from '../../lib/ids.ts';
import { formatMajorAmount, parseMajorAmount, toMajorNumber } from '../../lib/money.ts';
import { deleteStartedKey, getKey, holdsLease } from '../idempotency/idempotency-repo.ts';
import {
  existingKeyDecision,
  finishKeyWithin,
  inProgress,
  keyedOperation,
  type KeyDecision,
  type KeyedOperation,
  type OperationResult,
  startKeyedOperation,
  unlessLeaseLost,
} from '../idempotency/idempotent-operation.ts';
import { postEntry } from '../ledger/ledger.ts';
import { refundHoldEntry } from '../ledger/movements.ts';
import type { LifecycleDeps } from '../payments/payment-lifecycle.ts';
import { findIssuedAttempt, findPayment, lockPayment } from '../payments/payment-repo.ts';
import type { Payment, Principal } from '../payments/payment-types.ts';
import { applyRefundOutcome, sendRefund } from './refund-outcome.ts';
import { committedRefundsMinor, findRefund, insertRefund } from './refund-repo.ts';
import type { Refund, RefundReason } from './refund-types.ts';
import { refundView } from './refund-view.ts';

/**
 * POST /payment/{id}/refund without the HTTP (docs/money.md, "Refunds").
 *
 * 1. Checks, then one transaction: lock the payment, check that it is `succeeded` and that the
 *    refund fits (succeeded + pending refunds + this ≤ what the payer paid), insert the refund
 *    `pending`, hold its amount in the ledger (`refund_hold`). The payment row lock makes
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

type Failure = Extract<OperationResult, { kind: 'failure' }>;

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
}

export async function createRefund(
  deps: RefundDeps,
  principal: Principal,
  paymentId: string,
  input: RefundInput,
  idempotencyKey: string | undefined,
): Promise<OperationResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  let refundId = newId('refund', deps.clock.now().getTime());
  const op = keyedOperation(
    principal,
    REFUND_OPERATION,
    idempotencyKey,
    { payment_id: paymentId, amount: input.amountText, reason: input.reason },
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
    const held = await holdRefund(deps, principal, refundId, checked.connector, paymentId, input, {
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
): Promise<Failure | { kind: 'ok'; connector: Connector }> {
  const payment = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
  if (payment === undefined) return notFound();
  const amount = parseAmount(payment, input.amountText);
  if (amount.kind === 'failure') return amount;
  if (payment.status !== 'succeeded') return notSucceeded(payment);
  const attempt = await findIssuedAttempt(deps.store, principal.merchantId, principal.environment, paymentId);
  const connector = attempt === undefined ? undefined : deps.connectors.get(attempt.connector);
  if (attempt?.providerReference == null || connector === undefined || !connector.capabilities.supports.refund) {
    return failure('refund_not_supported', "This payment's channel does not support refunds.", [
      { channel: payment.channel, connector: attempt?.connector ?? null },
    ]);
  }
  return { kind: 'ok', connector };
}

function parseAmount(payment: Payment, amountText: string | null): Failure | { kind: 'ok'; amountMinor: bigint | null } {
  if (amountText === null) return { kind: 'ok', amountMinor: null };
  const parsed = parseMajorAmount(amountText, payment.currency);
  if (parsed.ok) return { kind: 'ok', amountMinor: parsed.minor };
  return failure('invalid_request', 'The request has invalid fields.', [
    { field: 'amount', issue: parsed.issue, message: `amount is not a valid ${payment.currency} amount` },
  ]);
}

const notSucceeded = (payment: Payment): Failure =>
  failure('payment_state_conflict', `Only a succeeded payment can be refunded; this one is ${payment.status}.`, [
    { status: payment.status },
  ]);

type HoldResult = { kind: 'held'; refund: Refund } | Failure | { kind: 'lease_lost' };

/** Step 1: under the payment lock, check the limit, insert the refund and hold its amount. */
async function holdRefund(
  deps: RefundDeps,
  principal: Principal,
  refundId: string,
  connector: Connector,
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
    if (payment.status !== 'succeeded') return notSucceeded(payment);
    const attempt = await findIssuedAttempt(tx, principal.merchantId, principal.environment, paymentId);
    if (attempt === undefined) return failure('refund_not_supported', "This payment's channel does not support refunds.");
    const committed = await committedRefundsMinor(tx, paymentId);
    const refundable = payment.amountPaidMinor - committed.succeeded - committed.pending;
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
    if (!connector.capabilities.supports.partialRefund && amountMinor !== payment.amountPaidMinor) {
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
      heldFrom: payment.settledAt === null ? 'merchant_pending' : 'merchant_available',
      version: 1,
      nextSyncAt: new Date(now.getTime() + deps.refundSyncDelayMs),
      syncCount: 0,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
    await insertRefund(tx, refund);
    const scope = { merchantId: payment.merchantId, environment: payment.environment, currency: c, now };
    await postEntry(tx, refundHoldEntry(scope, { refundId, paymentId }, amountMinor, refund.heldFrom));
    return { kind: 'held', refund };
  });
}
