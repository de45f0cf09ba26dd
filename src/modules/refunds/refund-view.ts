import { toMajorNumber } from '../../lib/money.ts';
import { type Refund, refundSource } from './refund-types.ts';

/** The refund as the API shows it (responses, stored idempotent responses, event snapshots). */
export function refundView(r: Refund) {
  return {
    id: r.id,
    object: 'refund' as const,
    environment: r.environment,
    payment_id: r.paymentId,
    amount: toMajorNumber(r.amountMinor, r.currency),
    currency: r.currency,
    status: r.status,
    source: refundSource(r),
    reason: r.reason,
    failure_code: r.failureCode,
    failure_message: r.failureMessage,
    version: r.version,
    created_at: r.createdAt.toISOString(),
    updated_at: r.updatedAt.toISOString(),
    completed_at: r.completedAt?.toISOString() ?? null,
  };
}

export type RefundView = ReturnType<typeof refundView>;
