import type { CurrencyCode } from '../../lib/currencies.ts';
import type { RefundHoldSource } from '../ledger/index.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * The refund state machine. `pending` until the provider gives a final answer; the database
 * mirrors the table in `refunds_guard_update()` (0008_refunds.sql).
 */
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const REFUND_TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

export const REFUND_REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;

/**
 * What a refund gives back: money the payment captured (`payment`), or a late payment the merchant
 * did not get (`late_payment`, held from `payer_refund_due`; docs/money.md "Late payment money").
 */
export const REFUND_SOURCES = ['payment', 'late_payment'] as const;
export type RefundSource = (typeof REFUND_SOURCES)[number];
export type RefundReason = (typeof REFUND_REASONS)[number];

export const refundSource = (r: Pick<Refund, 'heldFrom'>): RefundSource =>
  r.heldFrom === 'payer_refund_due' ? 'late_payment' : 'payment';

/** A refund as stored (amounts in minor units). */
export interface Refund {
  id: string;
  merchantId: string;
  environment: Environment;
  paymentId: string;
  attemptId: string;
  connector: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  status: RefundStatus;
  reason: RefundReason | null;
  failureCode: string | null;
  failureMessage: string | null;
  providerRefundId: string | null;
  heldFrom: RefundHoldSource;
  version: number;
  nextSyncAt: Date | null;
  syncCount: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}
