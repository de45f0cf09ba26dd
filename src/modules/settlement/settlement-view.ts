import { toMajorNumber } from '../../lib/money.ts';
import type { Settlement, SettlementLine } from './settlement-repo.ts';

/** A settlement as the API shows it; amounts become major-unit JSON numbers here only. */
export function settlementView(s: Settlement, lines?: readonly (SettlementLine & { referenceNo: string })[]) {
  const major = (minor: bigint) => toMajorNumber(minor, s.currency);
  return {
    id: s.id,
    object: 'settlement' as const,
    environment: s.environment,
    connector: s.connector,
    currency: s.currency,
    gross: major(s.grossMinor),
    fee: major(s.feeMinor),
    net: major(s.netMinor),
    payment_count: s.paymentCount,
    period_start: s.periodStart.toISOString(),
    period_end: s.periodEnd.toISOString(),
    created_at: s.createdAt.toISOString(),
    ...(lines === undefined
      ? {}
      : {
          payments: lines.map((l) => ({
            payment_id: l.paymentId,
            reference_no: l.referenceNo,
            provider_reference: l.providerReference,
            gross: major(l.grossMinor),
            fee: major(l.feeMinor),
            net: major(l.netMinor),
            settled_at: l.settledAt.toISOString(),
          })),
        }),
  };
}
