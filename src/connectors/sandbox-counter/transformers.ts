import type { ChargeRequest, ChargeSnapshot, Instructions, ProviderChargeStatus } from '../core/connector.ts';
import {
  date,
  isRecord,
  mapStatus,
  minor,
  ownerMetadata,
  parseEnvelope,
  snapshotFrom,
  str,
  type Transformers,
} from '../core/http-connector.ts';
import { sandboxRefund, sandboxRefundBody, sandboxSettlementEntries, sandboxSimulateBody } from '../core/sandbox-wire.ts';

/** Sandbox counter wire format ↔ domain. Amounts are integer strings of minor units. */
export const COUNTER_WIRE_STATUSES = ['ACTIVE', 'COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'REVERSED'] as const;
export type CounterWireStatus = (typeof COUNTER_WIRE_STATUSES)[number];

/** The one status map of this connector, exhaustive over the partner's status words. */
export const COUNTER_STATUS_MAP: Readonly<Record<CounterWireStatus, ProviderChargeStatus>> = {
  ACTIVE: 'pending',
  COMPLETED: 'paid',
  FAILED: 'failed',
  EXPIRED: 'expired',
  CANCELLED: 'canceled',
  REVERSED: 'reversed',
};

export const counterTransformers: Transformers = {
  createBody(r: ChargeRequest) {
    return {
      merchant_ref: r.attemptId,
      retail_outlet: r.instrument,
      customer_name: r.merchantName.slice(0, 60),
      payment_amount: r.amountMinor.toString(),
      currency: r.currency,
      expired_at: r.expiresAt.toISOString(),
      metadata: ownerMetadata(r),
    };
  },

  toIssued(body) {
    if (counterTransformers.toSnapshot(body) === undefined || !isRecord(body)) return undefined;
    const code = str(body['payment_code']);
    const partner = str(body['retail_outlet']);
    const expiresAt = date(body['expired_at']);
    const outlets = Array.isArray(body['outlets']) ? body['outlets'].filter((o): o is string => typeof o === 'string') : [];
    if (code === undefined || partner === undefined || expiresAt === undefined) return undefined;
    const instructions: Instructions = {
      type: 'counter',
      partner,
      partner_name: str(body['retail_outlet_name']) ?? partner,
      payment_code: code,
      barcode_value: str(body['barcode']) ?? code,
      outlets,
    };
    return { providerReference: String(body['id']), instructions, expiresAt };
  },

  toSnapshot(body): ChargeSnapshot | undefined {
    if (!isRecord(body)) return undefined;
    return snapshotFrom({
      id: body['id'],
      externalId: body['merchant_ref'],
      metadata: body['metadata'],
      status: mapStatus(COUNTER_STATUS_MAP, body['status']),
      amountMinor: minor(body['payment_amount']),
      amountPaidMinor: minor(body['paid_amount']),
      currency: body['currency'],
      sequence: body['seq'],
      paidAt: body['paid_at'],
      failureCode: body['failure_code'],
    });
  },

  parseNotification: (rawBody) =>
    parseEnvelope(rawBody, { eventId: 'notification_id', charge: 'payment_code' }, counterTransformers.toSnapshot),
  // The counter partner has no refunds (capabilities say so); the provider answers 422.
  refundBody: sandboxRefundBody,
  toRefund: sandboxRefund,
  toSettlementEntries: sandboxSettlementEntries,
  simulateBody: sandboxSimulateBody,
};
