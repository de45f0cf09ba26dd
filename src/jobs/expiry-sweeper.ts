import { callProvider } from '../connectors/core/provider-call.ts';
import type { CancelOutcome, ChargeSnapshot } from '../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../connectors/core/registry.ts';
import { applyProviderSnapshot, closePendingPayment } from '../modules/payments/payment-lifecycle.ts';
import { findExpiredPending, findIssuedAttempt, findPayment } from '../modules/payments/payment-repo.ts';
import type { Job } from './job-runner.ts';
import type { Environment, LifecycleDeps } from '../kernel/index.ts';

/**
 * Guarantees that every pending payment ends: at `expires_at` it becomes `expired`. Before that,
 * the provider is asked to close the charge (close the VA, void the code), which also tells us if
 * the payer paid at the last moment and the news has not arrived yet: then the payment succeeds
 * instead. If the provider does not answer, the payment expires anyway (the provider closes the
 * charge by itself at the same expiry, which we gave it), and a payment that still arrives later
 * is a late payment (docs/payments.md), handled by the merchant's policy, never dropped.
 */
export interface SweeperDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
}

export function expirySweeperJob(deps: SweeperDeps): Job {
  const batchSize = 50;
  return { name: 'expiry-sweeper', intervalMs: 10_000, batchSize, run: () => sweepExpired(deps, batchSize) };
}

export async function sweepExpired(deps: SweeperDeps, limit: number): Promise<number> {
  const due = await findExpiredPending(deps.store, deps.clock.now(), limit);
  for (const item of due) await expireOne(deps, item);
  return due.length;
}

async function expireOne(deps: SweeperDeps, ref: { id: string; merchantId: string; environment: Environment }): Promise<void> {
  const paymentRef = { merchantId: ref.merchantId, environment: ref.environment, paymentId: ref.id };
  const attempt = await findIssuedAttempt(deps.store, ref.merchantId, ref.environment, ref.id);
  const connector = attempt === undefined ? undefined : deps.connectors.get(attempt.connector);
  let closedSnapshot: ChargeSnapshot | null = null;
  if (attempt?.providerReference != null && connector !== undefined) {
    const request = { attemptId: attempt.id, providerReference: attempt.providerReference };
    const outcome: CancelOutcome = await callProvider(deps, 'close at expiry', { payment_id: ref.id }, (ctx) =>
      connector.capabilities.supports.cancel
        ? connector.cancelCharge({ ...request, reason: 'expired' }, ctx)
        : connector
            .queryCharge(request, ctx)
            .then((q) =>
              q.kind === 'found'
                ? { kind: 'not_cancelable' as const, snapshot: q.snapshot }
                : { kind: 'unknown' as const, code: q.kind, message: 'no status' },
            ),
    );
    if (outcome.kind === 'not_cancelable') {
      // The provider has news (typically: paid at the last moment). Apply it like a notification.
      await applyProviderSnapshot(deps, attempt.connector, outcome.snapshot, 'sweeper');
      const current = await findPayment(deps.store, ref.merchantId, ref.environment, ref.id);
      if (current?.status !== 'pending') return;
    } else if (outcome.kind === 'closed') {
      closedSnapshot = outcome.snapshot;
    } else {
      deps.log.warn(
        { payment_id: ref.id, connector: attempt.connector, code: outcome.code },
        'provider did not confirm closing an expired payment; expiring it anyway',
      );
    }
  }
  const result = await closePendingPayment(deps, paymentRef, 'expired', closedSnapshot);
  if (result.kind === 'closed') deps.log.info({ payment_id: ref.id }, 'payment expired');
}
