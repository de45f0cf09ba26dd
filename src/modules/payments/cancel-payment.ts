import { callProvider } from '../../connectors/core/provider-call.ts';
import type { CancelOutcome, Connector } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import {
  type KeyDecision,
  deleteStartedKey,
  existingKeyDecision,
  finishKeyWithin,
  inProgress,
  keyedOperation,
  startKeyedOperation,
  unlessLeaseLost,
} from '../idempotency/index.ts';
import { applyProviderSnapshot, closePendingPayment } from './payment-lifecycle.ts';
import { findIssuedAttempt, findPayment } from './payment-repo.ts';
import type { AttemptState, CancellationReason, Payment } from './payment-types.ts';
import { paymentView } from './payment-view.ts';
import type { KeyedResult, LifecycleDeps, Principal } from '../../kernel/index.ts';
import { recordAudit } from '../audit/index.ts';

/**
 * POST /payment/{id}/cancel without the HTTP. Only a pending payment can be canceled. The provider
 * is asked first to close the charge (close the VA, void the code), outside any transaction; only
 * when it confirms does the payment become `canceled`, in one transaction with its event and the
 * finished idempotency key. If the payer paid in the meantime the provider says so, the payment
 * becomes `succeeded`, and the cancel answers 409. A provider that does not answer leaves the
 * payment pending (503, nothing stored): canceling a payment the payer may be paying at that very
 * moment must not be guessed.
 */
export interface CancelPaymentDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
  idempotencyLeaseMs: number;
  idempotencyTtlMs: number;
}

export const CANCEL_OPERATION = 'payment.cancel';
const PROVIDER_RETRY_AFTER_SECONDS = 2;

const conflict = (message: string, status: string) => ({
  kind: 'failure' as const,
  code: 'payment_state_conflict' as const,
  message,
  details: [{ status }],
});
const notPending = (status: string) => conflict(`Only a pending payment can be canceled; this one is ${status}.`, status);

export async function cancelPayment(
  deps: CancelPaymentDeps,
  principal: Principal,
  paymentId: string,
  input: { cancellationReason: CancellationReason | null },
  idempotencyKey: string | undefined,
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  const op = keyedOperation(
    principal,
    CANCEL_OPERATION,
    idempotencyKey,
    { payment_id: paymentId, cancellation_reason: input.cancellationReason },
    paymentId,
  );
  let decision: KeyDecision | undefined = op === undefined ? undefined : await existingKeyDecision(keyDeps, op);
  if (decision?.kind === 'answer') return decision.result;

  // A run taken over from a crashed one holds a lease already; forget the key if we refuse.
  let leaseToken = decision?.kind === 'proceed' ? decision.leaseToken : undefined;
  const forget = async () => {
    if (op !== undefined && leaseToken !== undefined) await deleteStartedKey(deps.store, op.scope, leaseToken);
  };

  // Checks before any work: a rejection here stores nothing.
  const checked = await checkCancelable(deps, principal, paymentId);
  if (checked.kind === 'failure') {
    await forget();
    return checked;
  }
  const { payment, attempt, connector, providerReference } = checked;
  if (op !== undefined && decision === undefined) {
    decision = await startKeyedOperation(keyDeps, op);
    if (decision.kind === 'answer') return decision.result;
    leaseToken = decision.leaseToken;
  }

  const outcome: CancelOutcome = await callProvider(deps, 'cancel', { payment_id: paymentId }, (ctx) =>
    connector.cancelCharge({ attemptId: attempt.id, providerReference, reason: 'canceled' }, ctx),
  );

  if (outcome.kind === 'not_cancelable') {
    // The payer paid (or the provider ended it) first: record what the provider says, then refuse.
    await applyProviderSnapshot(deps, attempt.connector, outcome.snapshot, 'cancel');
    await forget();
    const current = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
    const status = current?.status ?? 'unknown';
    return conflict(`The provider could not cancel: the payment is ${status}.`, status);
  }
  if (outcome.kind !== 'closed') {
    await forget();
    if (outcome.kind === 'refused') return conflict(`The provider refused to cancel: ${outcome.message}`, payment.status);
    return {
      kind: 'failure',
      code: 'provider_unavailable',
      message: 'The provider did not confirm the cancel; the payment is still pending. Retry shortly.',
      details: [{ payment_id: paymentId }],
      retryAfterSeconds: PROVIDER_RETRY_AFTER_SECONDS,
    };
  }

  let body = '';
  const closed = await unlessLeaseLost(
    closePendingPayment(
      deps,
      { merchantId: principal.merchantId, environment: principal.environment, paymentId },
      'canceled',
      outcome.snapshot,
      {
        cancellationReason: input.cancellationReason,
        within: async (tx, canceled) => {
          body = JSON.stringify(paymentView(canceled, deps.publicBaseUrl));
          // What a checkout cancels on its own (actor `system`) is the service's doing, not recorded.
          if (principal.actor.kind !== 'system') {
            await recordAudit(tx, principal, {
              action: 'payment.canceled',
              objectType: 'payment',
              objectId: paymentId,
              changes: { status: { from: payment.status, to: canceled.status }, cancellation_reason: input.cancellationReason },
              at: deps.clock.now(),
            });
          }
          await finishKeyWithin(tx, keyDeps, op, leaseToken, { status: 200, body });
        },
      },
    ),
  );
  if (closed === undefined) return inProgress(1);
  if (closed.kind === 'not_found')
    return { kind: 'failure', code: 'resource_not_found', message: 'No such payment.', details: [] };
  if (closed.kind === 'not_pending') {
    // A notification changed the payment between our check and the close.
    await forget();
    return notPending(closed.payment.status);
  }
  return { kind: 'response', status: 200, body, replayed: false };
}

async function checkCancelable(
  deps: CancelPaymentDeps,
  principal: Principal,
  paymentId: string,
): Promise<
  | Extract<KeyedResult, { kind: 'failure' }>
  | { kind: 'ok'; payment: Payment; attempt: AttemptState; connector: Connector; providerReference: string }
> {
  const payment = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
  if (payment === undefined) return { kind: 'failure', code: 'resource_not_found', message: 'No such payment.', details: [] };
  if (payment.status !== 'pending') return notPending(payment.status);
  const attempt = await findIssuedAttempt(deps.store, principal.merchantId, principal.environment, paymentId);
  const connector = attempt === undefined ? undefined : deps.connectors.get(attempt.connector);
  if (attempt?.providerReference == null || connector === undefined || !connector.capabilities.supports.cancel) {
    return {
      kind: 'failure',
      code: 'operation_not_supported',
      message: "This payment's provider does not support canceling.",
      details: [{ connector: attempt?.connector ?? null }],
    };
  }
  return { kind: 'ok', payment, attempt, connector, providerReference: attempt.providerReference };
}
