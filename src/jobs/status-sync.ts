import { callProvider } from '../connectors/core/provider-call.ts';
import type { QueryOutcome } from '../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../connectors/core/registry.ts';
import { applyProviderSnapshot } from '../modules/payments/payment-lifecycle.ts';
import { findDueSyncs, rescheduleSync } from '../modules/payments/payment-repo.ts';
import type { ConnectorHealthTracker } from '../modules/routing/connector-health.ts';
import type { Job } from './job-runner.ts';
import type { LifecycleDeps } from '../kernel/index.ts';

/**
 * Status sync: when a provider's notification is late (lost, delayed, the provider's retries not
 * yet due), ask the provider. Each open (issued) attempt is first asked `statusSyncDelayMs` after
 * its instructions were issued, then with doubling gaps up to MAX_GAP_MS, until the payment leaves
 * `pending`. The answer goes through the same code as a notification, so a sync and a notification
 * reporting the same change change the payment once.
 */
export interface StatusSyncDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
  statusSyncDelayMs: number;
  health?: ConnectorHealthTracker;
}

const MAX_GAP_MS = 6 * 3_600_000;

export function statusSyncJob(deps: StatusSyncDeps): Job {
  const batchSize = 50;
  return { name: 'status-sync', intervalMs: 15_000, batchSize, run: () => syncDueAttempts(deps, batchSize) };
}

/** The gap before sync number `n + 1` (n syncs done so far). */
export function nextSyncGapMs(baseMs: number, n: number): number {
  return Math.min(baseMs * 2 ** Math.min(n, 20), MAX_GAP_MS);
}

export async function syncDueAttempts(deps: StatusSyncDeps, limit: number): Promise<number> {
  const due = await findDueSyncs(deps.store, deps.clock.now(), limit);
  for (const d of due) {
    const connector = deps.connectors.get(d.connector);
    if (connector === undefined) {
      await rescheduleSync(deps.store, d.attemptId, null, deps.clock.now());
      continue;
    }
    const outcome: QueryOutcome = await callProvider(deps, 'query', { attempt_id: d.attemptId }, (ctx) =>
      connector.queryCharge({ attemptId: d.attemptId, providerReference: d.providerReference }, ctx),
    );
    deps.health?.record(d.connector, outcome.kind !== 'unknown', deps.clock.now());
    if (outcome.kind === 'found') {
      const result = await applyProviderSnapshot(deps, d.connector, outcome.snapshot, 'sync');
      if (result.status === 'processed') deps.log.info({ attempt_id: d.attemptId, outcome: result.outcome }, 'status sync');
    } else {
      deps.log.warn({ attempt_id: d.attemptId, connector: d.connector, result: outcome.kind }, 'status sync got no status');
    }
    // Only moves attempts that are still open; an attempt that just ended keeps next_sync_at null.
    const now = deps.clock.now();
    await rescheduleSync(
      deps.store,
      d.attemptId,
      new Date(now.getTime() + nextSyncGapMs(deps.statusSyncDelayMs, d.syncCount + 1)),
      now,
    );
  }
  return due.length;
}
