import type { ChargeSnapshot } from '../../connectors/core/connector.ts';
import { canTransition } from './payment-states.ts';
import type { AttemptProviderFields, AttemptState, AttemptStatus, LatePaymentReason, Payment } from './payment-types.ts';
import type { LatePaymentPolicy } from '../../kernel/index.ts';

/**
 * What a provider's report means for a payment: a pure function from (payment, attempt, the
 * provider's snapshot of the charge, the merchant's late-payment policy) to the changes to make.
 * Notifications, status syncs, the expiry sweeper and cancel all go through it, so a paid charge
 * means the same thing whichever way the news arrives. docs/payments.md has the table.
 *
 * Duplicates and reordering: the snapshot carries the provider's per-charge change counter. A
 * report whose counter is not above the last applied one changes nothing (`stale`); a newer report
 * carries the whole state, so a "reversed" that overtakes its "paid" still ends at reversed (through
 * succeeded, with both events) and the late "paid" is then stale.
 */
export type PaymentEventType =
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.canceled'
  | 'payment.reversed'
  | 'payment.settled'
  | 'payment.partially_paid'
  | 'payment.late_payment_received';

export interface PaymentStep {
  event: PaymentEventType;
  after: Payment;
}

export interface AttemptChange extends AttemptProviderFields {
  /** Keep syncing only while the attempt is open. */
  keepSyncing: boolean;
}

export type LifecycleDecision =
  /** Old news (a duplicate or an overtaken report): nothing changes. */
  | { kind: 'stale'; outcome: string }
  /** The payment is still being created; try again shortly. */
  | { kind: 'defer'; outcome: string }
  | { kind: 'apply'; outcome: string; steps: PaymentStep[]; attempt: AttemptChange };

export interface LifecycleInput {
  payment: Payment;
  attempt: AttemptState;
  snapshot: ChargeSnapshot;
  policy: LatePaymentPolicy;
  /** A newer live payment holds the reference_no, so this one cannot become succeeded again. */
  acceptBlocked: boolean;
  now: Date;
}

const ATTEMPT_STATUS_FOR: Record<ChargeSnapshot['status'], AttemptStatus> = {
  pending: 'issued',
  partially_paid: 'issued',
  paid: 'succeeded',
  failed: 'failed',
  expired: 'expired',
  canceled: 'canceled',
  reversed: 'reversed',
};

export function decideProviderUpdate(input: LifecycleInput): LifecycleDecision {
  const { payment, attempt, snapshot, now } = input;
  if (snapshot.sequence <= attempt.providerSequence) {
    return { kind: 'stale', outcome: `stale: provider sequence ${snapshot.sequence} <= ${attempt.providerSequence}` };
  }
  if (payment.status === 'processing') return { kind: 'defer', outcome: 'deferred: payment still being created' };

  const recordOnly = (outcome: string, status: AttemptStatus = attempt.status): LifecycleDecision => ({
    kind: 'apply',
    outcome,
    steps: [],
    attempt: attemptChange(attempt, snapshot, status),
  });
  // Only an issued attempt has a provider reference: failover attempts never reached the payer.
  const issued = attempt.providerReference !== null;

  // Money on an attempt the payer never saw (e.g. a create that timed out and failed over).
  if (!issued) {
    if (snapshot.status === 'paid' && attempt.latePaymentAt === null) {
      return latePayment(input, 'refund_required', 'stray_attempt');
    }
    return recordOnly(`recorded: ${snapshot.status} on an attempt that was never issued`);
  }

  switch (payment.status) {
    case 'pending': {
      // Paid after our expiry: the provider had expired the charge and then took a late payment,
      // and its "expired" report has not reached us (or was overtaken). Expire first, then treat
      // the payment as late, exactly as if the reports had arrived in order.
      const paidLate = snapshot.paidAt !== null && snapshot.paidAt.getTime() > payment.expiresAt.getTime();
      if (paidLate && (snapshot.status === 'paid' || snapshot.status === 'reversed')) {
        const expired = step(payment, now, 'payment.expired', { status: 'expired', closedAt: now });
        const rest = decideProviderUpdate({ ...input, payment: expired.after, attempt: { ...attempt, status: 'expired' } });
        if (rest.kind !== 'apply') return rest;
        return {
          kind: 'apply',
          outcome: `expired, then ${rest.outcome}`,
          steps: [expired, ...rest.steps],
          attempt: rest.attempt,
        };
      }
      switch (snapshot.status) {
        case 'pending':
          return recordOnly('no change: pending');
        case 'partially_paid':
          if (snapshot.amountPaidMinor === payment.amountPaidMinor) return recordOnly('no change: same partial amount');
          return apply(input, 'applied: partially paid', [
            step(payment, now, 'payment.partially_paid', { amountPaidMinor: snapshot.amountPaidMinor }),
          ]);
        case 'paid':
          return apply(input, 'applied: succeeded', [succeededStep(payment, snapshot, now)]);
        case 'failed':
          return apply(input, 'applied: failed', [
            step(payment, now, 'payment.failed', {
              status: 'failed',
              failureCode: snapshot.failureCode ?? 'provider_failed',
              failureMessage: 'The provider reported the payment as failed.',
              closedAt: now,
            }),
          ]);
        case 'expired':
          return apply(input, 'applied: expired', [
            step(payment, now, 'payment.expired', {
              status: 'expired',
              closedAt: now,
              amountPaidMinor: snapshot.amountPaidMinor,
            }),
          ]);
        case 'canceled':
          return apply(input, 'applied: canceled', [
            step(payment, now, 'payment.canceled', { status: 'canceled', closedAt: now }),
          ]);
        case 'reversed': {
          // The "paid" report was lost or overtaken: the payment did succeed before it was reversed.
          const succeeded = succeededStep(payment, snapshot, now);
          return apply(input, 'applied: succeeded, then reversed', [succeeded, reversedStep(succeeded.after, snapshot, now)]);
        }
      }
      break;
    }
    case 'succeeded':
      if (snapshot.status === 'reversed') {
        return apply(input, 'applied: reversed', [reversedStep(payment, snapshot, now)]);
      }
      return recordOnly(`no change: ${snapshot.status} reported for a succeeded payment`, attempt.status);
    case 'expired':
    case 'canceled':
    case 'failed':
      if (snapshot.status === 'paid' && attempt.latePaymentAt === null) {
        const onTime =
          payment.status === 'expired' && snapshot.paidAt !== null && snapshot.paidAt.getTime() <= payment.expiresAt.getTime();
        if (payment.status === 'failed') return latePayment(input, 'refund_required', 'payment_failed');
        if (input.acceptBlocked) return latePayment(input, 'refund_required', 'reference_no_reused');
        if (onTime) return latePayment(input, 'accepted', 'paid_before_expiry');
        return latePayment(input, input.policy === 'accept' ? 'accepted' : 'refund_required', 'merchant_policy');
      }
      return recordOnly(`no change: ${snapshot.status} reported for a ${payment.status} payment`, attempt.status);
    case 'reversed':
      return recordOnly(`no change: ${snapshot.status} reported for a reversed payment`, attempt.status);
  }
  return recordOnly('no change');
}

/** True when the decision would make a closed payment succeeded (the caller checks reference_no first). */
export function acceptsLatePayment(decision: LifecycleDecision): boolean {
  return decision.kind === 'apply' && decision.steps.some((s) => s.after.latePayment?.resolution === 'accepted');
}

function apply(input: LifecycleInput, outcome: string, steps: PaymentStep[]): LifecycleDecision {
  const status = ATTEMPT_STATUS_FOR[input.snapshot.status];
  return { kind: 'apply', outcome, steps, attempt: attemptChange(input.attempt, input.snapshot, status) };
}

function latePayment(
  input: LifecycleInput,
  resolution: 'accepted' | 'refund_required',
  reason: LatePaymentReason,
): LifecycleDecision {
  const { payment, attempt, snapshot, now } = input;
  const late = {
    attempt_id: attempt.id,
    received_at: (snapshot.paidAt ?? now).toISOString(),
    amount_minor: snapshot.amountPaidMinor.toString(),
    resolution,
    reason,
  };
  const change = attemptChange(attempt, snapshot, resolution === 'accepted' ? 'succeeded' : attempt.status);
  change.latePaymentAt = snapshot.paidAt ?? now;
  change.latePaymentResolution = resolution;
  if (resolution === 'accepted' && canTransition(payment.status, 'succeeded')) {
    const succeeded = succeededStep(payment, snapshot, now);
    succeeded.after.latePayment = late;
    return { kind: 'apply', outcome: `late payment accepted (${reason})`, steps: [succeeded], attempt: change };
  }
  return {
    kind: 'apply',
    outcome: `late payment: refund required (${reason})`,
    steps: [step(payment, now, 'payment.late_payment_received', { latePayment: { ...late, resolution: 'refund_required' } })],
    attempt: { ...change, latePaymentResolution: 'refund_required' },
  };
}

function succeededStep(payment: Payment, snapshot: ChargeSnapshot, now: Date): PaymentStep {
  return step(payment, now, 'payment.succeeded', {
    status: 'succeeded',
    succeededAt: snapshot.paidAt ?? now,
    // A succeeded payment is not closed: it may still be reversed or refunded.
    closedAt: null,
    amountPaidMinor: snapshot.amountPaidMinor,
  });
}

function step(before: Payment, now: Date, event: PaymentEventType, patch: Partial<Payment>): PaymentStep {
  return { event, after: { ...before, ...patch, version: before.version + 1, updatedAt: now } };
}

/**
 * The provider took the money back. Why: the provider's code when its report carries one,
 * otherwise what a reversal is on the channel (a chargeback of a transfer or wallet payment, the
 * counter partner reversing a cash payment).
 */
function reversedStep(before: Payment, snapshot: ChargeSnapshot, now: Date): PaymentStep {
  const reversalReason =
    snapshot.failureCode?.toLowerCase() ?? (before.channel === 'counter' ? 'counter_reversal' : 'chargeback');
  return step(before, now, 'payment.reversed', { status: 'reversed', closedAt: now, reversalReason });
}

function attemptChange(attempt: AttemptState, snapshot: ChargeSnapshot, status: AttemptStatus): AttemptChange {
  return {
    status,
    providerStatus: snapshot.status,
    providerSequence: Math.max(attempt.providerSequence, snapshot.sequence),
    amountPaidMinor: snapshot.amountPaidMinor,
    paidAt: snapshot.paidAt ?? attempt.paidAt,
    latePaymentAt: attempt.latePaymentAt,
    latePaymentResolution: attempt.latePaymentResolution,
    keepSyncing: status === 'issued',
  };
}
