import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { ChargeSnapshot, Connector, RefundReport } from '../../connectors/core/connector.ts';
import { callProvider } from '../../connectors/core/provider-call.ts';
import { applyProviderSnapshot, resolveSnapshotOwner } from '../payments/index.ts';
import { applyRefundOutcome, findRefundOwner } from '../refunds/index.ts';
import {
  claimDueNotifications,
  type StoredNotification,
  finishNotification,
  retryNotificationLater,
} from './notification-repo.ts';
import type { LifecycleDeps } from '../../kernel/index.ts';

/**
 * Processes stored provider notifications: parse (the connector's transformers), apply to the
 * payment (payment-lifecycle.ts), record what happened on the notification row. A notification
 * for a payment still being created waits and is tried again; one that keeps failing ends as
 * `failed` after MAX_ATTEMPTS, visible in the table, never silently dropped.
 */
export interface ProcessDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  /** The deadline of the status query a `query`-trust notification triggers. */
  connectorTimeoutMs: number;
}

export const MAX_NOTIFICATION_ATTEMPTS = 20;
const LEASE_MS = 60_000;
const MAX_BACKOFF_MS = 10 * 60_000;

export async function processDueNotifications(deps: ProcessDeps, limit: number): Promise<number> {
  const now = deps.clock.now();
  const claimed = await claimDueNotifications(deps.store, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit });
  for (const n of claimed) {
    const connector = deps.connectors.get(n.connector);
    const refundParsed = connector?.parseRefundNotification?.(n.rawBody);
    if (refundParsed?.ok === true) {
      await processRefundNotification(deps, n, refundParsed.refund);
      continue;
    }
    const parsed = refundParsed ?? connector?.parseNotification(n.rawBody);
    if (connector === undefined || parsed === undefined || !parsed.ok) {
      await finishNotification(deps.store, n.id, {
        status: 'failed',
        outcome: 'unreadable',
        error: connector === undefined ? 'connector no longer configured' : parsed?.ok === false ? parsed.reason : 'unreadable',
        owner: null,
        now: deps.clock.now(),
      });
      continue;
    }
    const later = () => new Date(deps.clock.now().getTime() + Math.min(1_000 * 2 ** n.attempts, MAX_BACKOFF_MS));
    const trusted = await trustedSnapshot(deps, connector, parsed.snapshot);
    if (trusted.kind !== 'snapshot') {
      if (trusted.kind === 'retry' && n.attempts < MAX_NOTIFICATION_ATTEMPTS) {
        await retryNotificationLater(deps.store, n.id, { nextAttemptAt: later(), outcome: trusted.outcome, error: null });
      } else {
        await finishNotification(deps.store, n.id, {
          status: trusted.kind === 'retry' ? 'failed' : 'ignored',
          outcome: trusted.outcome,
          error: null,
          owner: null,
          now: deps.clock.now(),
        });
      }
      continue;
    }
    const { snapshot } = trusted;
    const found = await resolveSnapshotOwner(deps.store, n.connector, snapshot);
    const owner = found === undefined ? null : { ...found, attemptId: snapshot.attemptId };
    try {
      // The owner found here travels with the snapshot, so it is not looked up twice.
      const owned = found === undefined ? snapshot : { ...snapshot, owner: found };
      const result = await applyProviderSnapshot(deps, n.connector, owned, 'notification');
      if (result.status === 'deferred' && n.attempts < MAX_NOTIFICATION_ATTEMPTS) {
        await retryNotificationLater(deps.store, n.id, { nextAttemptAt: later(), outcome: result.outcome, error: null });
      } else {
        await finishNotification(deps.store, n.id, {
          status: result.status === 'processed' ? 'processed' : result.status === 'ignored' ? 'ignored' : 'failed',
          outcome: result.outcome,
          error: null,
          owner,
          now: deps.clock.now(),
        });
      }
    } catch (error) {
      deps.log.error({ err: error, notification_id: n.id }, 'provider notification processing failed');
      const message = error instanceof Error ? error.message : String(error);
      if (n.attempts < MAX_NOTIFICATION_ATTEMPTS) {
        await retryNotificationLater(deps.store, n.id, { nextAttemptAt: later(), outcome: 'error', error: message });
      } else {
        await finishNotification(deps.store, n.id, {
          status: 'failed',
          outcome: 'error',
          error: message,
          owner,
          now: deps.clock.now(),
        });
      }
    }
  }
  return claimed.length;
}

/**
 * A provider's report about a refund: applied like the refund's own answer (refund-outcome.ts),
 * so it and the refund sync job change the refund once between them. The refund is found by the
 * id the provider echoes, and only for the connector it was sent to.
 */
async function processRefundNotification(deps: ProcessDeps, n: StoredNotification, report: RefundReport): Promise<void> {
  const owner = await findRefundOwner(deps.store, report.refundId, n.connector);
  const finish = (status: 'processed' | 'ignored' | 'failed', outcome: string, error: string | null) =>
    finishNotification(deps.store, n.id, {
      status,
      outcome,
      error,
      owner: owner === undefined ? null : owner,
      now: deps.clock.now(),
    });
  if (owner === undefined) {
    await finish('ignored', 'unknown refund for this connector', null);
    return;
  }
  try {
    const result = await applyRefundOutcome(
      deps,
      { merchantId: owner.merchantId, environment: owner.environment, refundId: report.refundId },
      report.status === 'failed'
        ? { kind: 'refused', code: report.failureCode ?? 'refund_failed', message: 'the provider failed the refund' }
        : { kind: report.status, providerRefundId: report.providerRefundId },
    );
    await finish(result.kind === 'changed' ? 'processed' : 'ignored', `refund ${result.kind}`, null);
  } catch (error) {
    deps.log.error({ err: error, notification_id: n.id }, 'refund notification processing failed');
    const message = error instanceof Error ? error.message : String(error);
    if (n.attempts < MAX_NOTIFICATION_ATTEMPTS) {
      const nextAttemptAt = new Date(deps.clock.now().getTime() + Math.min(1_000 * 2 ** n.attempts, MAX_BACKOFF_MS));
      await retryNotificationLater(deps.store, n.id, { nextAttemptAt, outcome: 'error', error: message });
    } else {
      await finish('failed', 'error', message);
    }
  }
}

type Trusted = { kind: 'snapshot'; snapshot: ChargeSnapshot } | { kind: 'retry' | 'ignore'; outcome: string };

/**
 * The snapshot to apply. A `signed` notification is its own proof. A `query` one only says "look
 * at this charge" (its sender is authenticated, not every field): the provider's status API
 * answers for it. A charge the provider does not know, or an answer about another attempt, is
 * ignored; no answer is tried again later, like a notification that arrived too early.
 */
async function trustedSnapshot(deps: ProcessDeps, connector: Connector, claimed: ChargeSnapshot): Promise<Trusted> {
  if (connector.capabilities.notificationTrust === 'signed') return { kind: 'snapshot', snapshot: claimed };
  const outcome = await callProvider(deps, 'query', { attempt_id: claimed.attemptId }, (ctx) =>
    connector.queryCharge({ attemptId: claimed.attemptId, providerReference: claimed.providerReference }, ctx),
  );
  if (outcome.kind === 'unknown') return { kind: 'retry', outcome: 'provider status unavailable' };
  if (outcome.kind === 'not_found') return { kind: 'ignore', outcome: 'the provider does not know the charge' };
  if (outcome.snapshot.attemptId !== claimed.attemptId)
    return { kind: 'ignore', outcome: 'the provider answered for another attempt' };
  return { kind: 'snapshot', snapshot: outcome.snapshot };
}
