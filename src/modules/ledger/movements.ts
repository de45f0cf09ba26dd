import type { CurrencyCode } from '../../lib/currencies.ts';
import { credit, debit, type NewEntry } from './ledger.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * The entry for each money movement of docs/money.md, as pure functions. The table in the docs
 * and these builders say the same thing; the property tests post them in random orders.
 */
interface Scope {
  merchantId: string;
  environment: Environment;
  currency: CurrencyCode;
  now: Date;
}

/** A refund and the payment it gives money back from. */
export interface RefundRef {
  refundId: string;
  paymentId: string;
}

/** Where a refund or reversal takes the money from: unsettled or settled balance. */
export type MerchantBalanceKind = 'merchant_pending' | 'merchant_available';

/**
 * Where a refund's hold comes from: the merchant's balance (a refund of captured money) or what is
 * owed to the payer from a late payment (docs/money.md "Late payment money").
 */
export type RefundHoldSource = MerchantBalanceKind | 'payer_refund_due';

const entry = (s: Scope, fields: Omit<NewEntry, 'merchantId' | 'environment' | 'now'>): NewEntry => ({
  merchantId: s.merchantId,
  environment: s.environment,
  now: s.now,
  ...fields,
});

export function captureEntry(s: Scope, paymentId: string, amountMinor: bigint): NewEntry {
  return entry(s, {
    entryKey: `capture:${paymentId}`,
    type: 'capture',
    objectType: 'payment',
    objectId: paymentId,
    paymentId,
    postings: [debit('provider_receivable', s.currency, amountMinor), credit('merchant_pending', s.currency, amountMinor)],
  });
}

/**
 * One payment's settlement line: the provider pays the net N = G − F of the gross G it collected.
 * The merchant's side moves what is still pending of this payment (P: the capture less refunds
 * and a reversal already taken from pending, see `paymentPendingMinor`) to available, less the
 * fee. With no refund before settlement P = G and available gains N.
 */
export function settlementEntry(
  s: Scope,
  settlementId: string,
  paymentId: string,
  line: { grossMinor: bigint; feeMinor: bigint; pendingMinor: bigint },
): NewEntry {
  const { grossMinor, feeMinor, pendingMinor } = line;
  const c = s.currency;
  const postings = [
    debit('settlement_cash', c, grossMinor - feeMinor),
    debit('fees', c, feeMinor),
    credit('provider_receivable', c, grossMinor),
    debit('merchant_pending', c, pendingMinor),
    credit('merchant_available', c, pendingMinor - feeMinor),
    credit('fees', c, feeMinor),
  ].filter((p) => p.amountMinor !== 0n); // a fee of zero (or a net of zero) posts nothing
  return entry(s, {
    entryKey: `settle:${settlementId}:${paymentId}`,
    type: 'settlement',
    objectType: 'settlement',
    objectId: settlementId,
    paymentId,
    postings,
  });
}

/**
 * A late payment the merchant does not get (resolution `refund_required`): the provider collected
 * it, and it is owed to the payer. One per attempt (an attempt records one late payment).
 */
export function latePaymentEntry(s: Scope, attemptId: string, paymentId: string, amountMinor: bigint): NewEntry {
  return entry(s, {
    entryKey: `late_payment:${attemptId}`,
    type: 'late_payment',
    objectType: 'payment',
    objectId: paymentId,
    paymentId,
    postings: [debit('provider_receivable', s.currency, amountMinor), credit('payer_refund_due', s.currency, amountMinor)],
  });
}

export function refundHoldEntry(s: Scope, refund: RefundRef, amountMinor: bigint, from: RefundHoldSource): NewEntry {
  return entry(s, {
    entryKey: `refund_hold:${refund.refundId}`,
    type: 'refund_hold',
    objectType: 'refund',
    objectId: refund.refundId,
    paymentId: refund.paymentId,
    postings: [debit(from, s.currency, amountMinor), credit('refunds_pending', s.currency, amountMinor)],
  });
}

export function refundPostEntry(s: Scope, refund: RefundRef, amountMinor: bigint): NewEntry {
  return entry(s, {
    entryKey: `refund_post:${refund.refundId}`,
    type: 'refund_post',
    objectType: 'refund',
    objectId: refund.refundId,
    paymentId: refund.paymentId,
    postings: [debit('refunds_pending', s.currency, amountMinor), credit('provider_receivable', s.currency, amountMinor)],
  });
}

export function refundVoidEntry(s: Scope, refund: RefundRef, amountMinor: bigint, backTo: RefundHoldSource): NewEntry {
  return entry(s, {
    entryKey: `refund_void:${refund.refundId}`,
    type: 'refund_void',
    objectType: 'refund',
    objectId: refund.refundId,
    paymentId: refund.paymentId,
    postings: [debit('refunds_pending', s.currency, amountMinor), credit(backTo, s.currency, amountMinor)],
  });
}

export function reversalEntry(s: Scope, paymentId: string, amountMinor: bigint, from: MerchantBalanceKind): NewEntry {
  return entry(s, {
    entryKey: `reversal:${paymentId}`,
    type: 'reversal',
    objectType: 'payment',
    objectId: paymentId,
    paymentId,
    postings: [debit(from, s.currency, amountMinor), credit('provider_receivable', s.currency, amountMinor)],
  });
}

/**
 * A refund held on a payment that the provider then reversed, and that the provider refused: the
 * reversal took everything else of the payment, and this held amount goes the same way (the
 * provider keeps it), instead of back to the merchant.
 */
export function reversalOfHeldRefundEntry(s: Scope, refund: RefundRef, amountMinor: bigint): NewEntry {
  return entry(s, {
    entryKey: `reversal:${refund.paymentId}:${refund.refundId}`,
    type: 'reversal',
    objectType: 'refund',
    objectId: refund.refundId,
    paymentId: refund.paymentId,
    postings: [debit('refunds_pending', s.currency, amountMinor), credit('provider_receivable', s.currency, amountMinor)],
  });
}
