import type { ConnectorRegistry } from '../connectors/core/registry.ts';
import { applyRefundOutcome, sendRefund } from '../modules/refunds/refund-outcome.ts';
import { findDueRefundSyncs, findRefund, rescheduleRefundSync } from '../modules/refunds/refund-repo.ts';
import type { Job } from './job-runner.ts';
import { nextSyncGapMs } from './status-sync.ts';
import type { LifecycleDeps } from '../kernel/index.ts';

/**
 * Refund sync: a refund the provider has not finished (it answered `pending`, or did not answer)
 * is sent again with the same refund id, which the provider answers with that refund's current
 * state, first `refundSyncDelayMs` after the request, then with doubling gaps (up to 6 h) until
 * it is final. The answer goes through the same code as the request's own answer and the
 * provider's notification, so whichever comes first changes the refund, once.
 */
export interface RefundSyncDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
  refundSyncDelayMs: number;
}

export const REFUND_SYNC_DELAY_MS = 60_000;

export function refundSyncJob(deps: RefundSyncDeps): Job {
  const batchSize = 50;
  return { name: 'refund-sync', intervalMs: 15_000, batchSize, run: () => syncDueRefunds(deps, batchSize) };
}

export async function syncDueRefunds(deps: RefundSyncDeps, limit: number): Promise<number> {
  const due = await findDueRefundSyncs(deps.store, deps.clock.now(), limit);
  for (const d of due) {
    const refund = await findRefund(deps.store, d.merchantId, d.environment, d.id);
    const connector = refund === undefined ? undefined : deps.connectors.get(refund.connector);
    if (refund !== undefined && connector !== undefined) {
      const outcome = await sendRefund(deps, connector, refund);
      const result = await applyRefundOutcome(
        deps,
        { merchantId: d.merchantId, environment: d.environment, refundId: d.id },
        outcome,
      );
      if (result.kind === 'changed') deps.log.info({ refund_id: d.id, status: result.refund.status }, 'refund sync');
      if (outcome.kind === 'unknown') deps.log.warn({ refund_id: d.id, code: outcome.code }, 'refund sync got no answer');
    } else {
      deps.log.warn({ refund_id: d.id }, 'refund sync: connector no longer configured');
    }
    // Only moves refunds that are still pending.
    const now = deps.clock.now();
    await rescheduleRefundSync(
      deps.store,
      d.id,
      new Date(now.getTime() + nextSyncGapMs(deps.refundSyncDelayMs, d.syncCount + 1)),
    );
  }
  return due.length;
}
