import type { Environment } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { credit, debit, type NewEntry } from './ledger.ts';

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

/** Where a refund or reversal takes the money from: unsettled or settled balance. */
export type MerchantBalanceKind = 'merchant_pending' | 'merchant_available';

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
    postings: [debit('provider_receivable', s.currency, amountMinor), credit('merchant_pending', s.currency, amountMinor)],
  });
}

export function settlementEntry(
  s: Scope,
  settlementId: string,
  paymentId: string,
  grossMinor: bigint,
  feeMinor: bigint,
): NewEntry {
  const netMinor = grossMinor - feeMinor;
  const c = s.currency;
  const postings = [
    debit('settlement_cash', c, netMinor),
    debit('fees', c, feeMinor),
    credit('provider_receivable', c, grossMinor),
    debit('merchant_pending', c, grossMinor),
    credit('merchant_available', c, netMinor),
    credit('fees', c, feeMinor),
  ].filter((p) => p.amountMinor !== 0n); // a fee of zero (or a net of zero) posts nothing
  return entry(s, {
    entryKey: `settle:${settlementId}:${paymentId}`,
    type: 'settlement',
    objectType: 'settlement',
    objectId: settlementId,
    postings,
  });
}

export function refundHoldEntry(s: Scope, refundId: string, amountMinor: bigint, from: MerchantBalanceKind): NewEntry {
  return entry(s, {
    entryKey: `refund_hold:${refundId}`,
    type: 'refund_hold',
    objectType: 'refund',
    objectId: refundId,
    postings: [debit(from, s.currency, amountMinor), credit('refunds_pending', s.currency, amountMinor)],
  });
}

export function refundPostEntry(s: Scope, refundId: string, amountMinor: bigint): NewEntry {
  return entry(s, {
    entryKey: `refund_post:${refundId}`,
    type: 'refund_post',
    objectType: 'refund',
    objectId: refundId,
    postings: [debit('refunds_pending', s.currency, amountMinor), credit('provider_receivable', s.currency, amountMinor)],
  });
}

export function refundVoidEntry(s: Scope, refundId: string, amountMinor: bigint, backTo: MerchantBalanceKind): NewEntry {
  return entry(s, {
    entryKey: `refund_void:${refundId}`,
    type: 'refund_void',
    objectType: 'refund',
    objectId: refundId,
    postings: [debit('refunds_pending', s.currency, amountMinor), credit(backTo, s.currency, amountMinor)],
  });
}

export function reversalEntry(s: Scope, paymentId: string, amountMinor: bigint, from: MerchantBalanceKind): NewEntry {
  return entry(s, {
    entryKey: `reversal:${paymentId}`,
    type: 'reversal',
    objectType: 'payment',
    objectId: paymentId,
    postings: [debit(from, s.currency, amountMinor), credit('provider_receivable', s.currency, amountMinor)],
  });
}
