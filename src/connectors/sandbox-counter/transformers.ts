import type {
  ChargeRequest,
  ChargeSnapshot,
  Instructions,
  ParsedNotification,
  ProviderChargeStatus,
  RefundRequest,
} from '../core/connector.ts';
import {
  date,
  isRecord,
  jsonObject,
  minor,
  ownerFromMetadata,
  ownerMetadata,
  positiveInt,
  str,
  type Transformers,
} from '../core/http-connector.ts';
import { sandboxRefund, sandboxSettlementEntries, sandboxSimulateBody } from '../core/sandbox-wire.ts';

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

const isStatus = (v: unknown): v is CounterWireStatus =>
  typeof v === 'string' && (COUNTER_WIRE_STATUSES as readonly string[]).includes(v);

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
    if (!isRecord(body) || !isStatus(body['status'])) return undefined;
    const total = minor(body['payment_amount']);
    const paid = minor(body['paid_amount']);
    const owner = ownerFromMetadata(body['metadata']);
    const id = str(body['id']);
    const ref = str(body['merchant_ref']);
    const sequence = positiveInt(body['seq']);
    const currency = str(body['currency']);
    if (total === undefined || paid === undefined || owner === undefined || id === undefined || ref === undefined)
      return undefined;
    if (sequence === undefined || currency === undefined) return undefined;
    return {
      providerReference: id,
      attemptId: ref,
      owner,
      status: COUNTER_STATUS_MAP[body['status']],
      amountMinor: total,
      amountPaidMinor: paid,
      currency,
      sequence,
      paidAt: date(body['paid_at']) ?? null,
      failureCode: str(body['failure_code'])?.toLowerCase() ?? null,
    };
  },

  parseNotification(rawBody): ParsedNotification {
    const body = jsonObject(rawBody);
    const eventId = str(body?.['notification_id']);
    const snapshot = counterTransformers.toSnapshot(body?.['payment_code']);
    if (eventId === undefined || snapshot === undefined) return { ok: false, reason: 'not a payment-code notification' };
    return { ok: true, eventId, snapshot };
  },

  // The counter partner has no refunds (capabilities say so); the provider answers 422.
  refundBody(r: RefundRequest) {
    return { charge_id: r.providerReference, amount_minor: r.amountMinor.toString() };
  },
  toRefund: sandboxRefund,
  toSettlementEntries: sandboxSettlementEntries,
  simulateBody: sandboxSimulateBody,
};
