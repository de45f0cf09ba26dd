import { randomBytes } from 'node:crypto';
import { claimExpiredLease, findAbandonedCreates } from '../modules/idempotency/idempotency-repo.ts';
import { findMerchant } from '../modules/merchants/merchant-repo.ts';
import { type CreatePaymentDeps, drive } from '../modules/payments/create-payment.ts';
import type { Job } from './job-runner.ts';

/**
 * Finishes creates that nobody will retry (docs/idempotency.md, "Requests that are never
 * retried"): a processing payment whose lease expired long enough ago is resumed exactly as a
 * retry would resume it; if no provider issues instructions it fails, and its key is finished
 * with that final answer.
 */
export function creationCompleterJob(deps: CreatePaymentDeps & { abandonAfterMs: number }): Job {
  const batchSize = 20;
  return {
    name: 'creation-completer',
    intervalMs: 5_000,
    batchSize,
    async run() {
      const now = deps.clock.now();
      const abandoned = await findAbandonedCreates(deps.store, {
        now,
        createdBefore: new Date(now.getTime() - deps.abandonAfterMs),
        limit: batchSize,
      });
      for (const item of abandoned) {
        const leaseToken = randomBytes(12).toString('base64url');
        const claimed = await claimExpiredLease(deps.store, item.scope, {
          seenToken: item.leaseToken,
          newToken: leaseToken,
          lockedUntil: new Date(deps.clock.now().getTime() + deps.idempotencyLeaseMs),
          now: deps.clock.now(),
        });
        if (!claimed) continue; // a client retry or another worker got there first
        const merchant = await findMerchant(deps.store, item.scope.merchantId);
        if (merchant === undefined) continue;
        const principal = {
          merchantId: merchant.id,
          merchantName: merchant.name,
          environment: item.scope.environment,
          apiVersion: merchant.apiVersion,
          actor: { kind: 'system' as const, name: 'completer' },
        };
        const result = await drive(deps, principal, item.scope, leaseToken, item.resourceId, 'completer');
        deps.log.info({ payment_id: item.resourceId, result: result.kind }, 'completed an abandoned create');
      }
      return abandoned.length;
    },
  };
}
