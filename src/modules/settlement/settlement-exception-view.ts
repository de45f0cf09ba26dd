import { reportedMajorNumber } from '../../lib/money.ts';
import type { SettlementException } from './settlement-exception-repo.ts';

/**
 * A settlement exception as merchants (API) and operators (CLI --json) see it. Amounts are the
 * provider's, in major units of the currency it named (minor units if we do not know it). The
 * attempt id is internal and stays out; the payment and the provider's charge identify the line.
 */
export function settlementExceptionView(e: SettlementException) {
  return {
    id: e.id,
    object: 'settlement_exception' as const,
    connector: e.connector,
    kind: e.kind,
    status: e.status,
    payment_id: e.paymentId,
    provider_reference: e.providerReference,
    currency: e.currency,
    gross: reportedMajorNumber(e.grossMinor, e.currency),
    fee: reportedMajorNumber(e.feeMinor, e.currency),
    settled_at: e.settledAt.toISOString(),
    detail: e.detail,
    resolved_at: e.resolvedAt?.toISOString() ?? null,
    resolution: e.resolution,
    created_at: e.createdAt.toISOString(),
  };
}
