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

/** Sandbox e-wallet wire format ↔ domain. Amounts are integer strings of minor units. */
export const EWALLET_WIRE_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'EXPIRED', 'VOIDED', 'REVERSED'] as const;
export type EwalletWireStatus = (typeof EWALLET_WIRE_STATUSES)[number];

/** The one status map of this connector, exhaustive over the wallet's status words. */
export const EWALLET_STATUS_MAP: Readonly<Record<EwalletWireStatus, ProviderChargeStatus>> = {
  PENDING: 'pending',
  SUCCEEDED: 'paid',
  FAILED: 'failed',
  EXPIRED: 'expired',
  VOIDED: 'canceled',
  REVERSED: 'reversed',
};

const isStatus = (v: unknown): v is EwalletWireStatus =>
  typeof v === 'string' && (EWALLET_WIRE_STATUSES as readonly string[]).includes(v);

export const ewalletTransformers: Transformers = {
  createBody(r: ChargeRequest) {
    return {
      reference_id: r.attemptId,
      channel_code: r.instrument,
      merchant_name: r.merchantName.slice(0, 60),
      amount_minor: r.amountMinor.toString(),
      currency: r.currency,
      expires_at: r.expiresAt.toISOString(),
      description: r.description ?? `Payment ${r.referenceNo}`,
      metadata: ownerMetadata(r),
    };
  },

  toIssued(body) {
    if (ewalletTransformers.toSnapshot(body) === undefined || !isRecord(body)) return undefined;
    const actions = isRecord(body['actions']) ? body['actions'] : {};
    const checkout = str(actions['checkout_url']);
    const deepLink = str(actions['deep_link']);
    const qr = str(actions['qr_string']);
    const expiresAt = date(body['expires_at']);
    const provider = str(body['channel_code']);
    if (
      checkout === undefined ||
      deepLink === undefined ||
      qr === undefined ||
      expiresAt === undefined ||
      provider === undefined
    ) {
      return undefined;
    }
    const instructions: Instructions = {
      type: 'ewallet',
      provider,
      provider_name: str(body['channel_name']) ?? provider,
      checkout_url: checkout,
      deep_link: deepLink,
      qr_string: qr,
    };
    return { providerReference: String(body['id']), instructions, expiresAt };
  },

  toSnapshot(body): ChargeSnapshot | undefined {
    if (!isRecord(body) || !isStatus(body['status'])) return undefined;
    const total = minor(body['amount_minor']);
    const captured = minor(body['captured_minor']);
    const owner = ownerFromMetadata(body['metadata']);
    const id = str(body['id']);
    const referenceId = str(body['reference_id']);
    const sequence = positiveInt(body['revision']);
    const currency = str(body['currency']);
    if (total === undefined || captured === undefined || owner === undefined || id === undefined || referenceId === undefined) {
      return undefined;
    }
    if (sequence === undefined || currency === undefined) return undefined;
    return {
      providerReference: id,
      attemptId: referenceId,
      owner,
      status: EWALLET_STATUS_MAP[body['status']],
      amountMinor: total,
      amountPaidMinor: captured,
      currency,
      sequence,
      paidAt: date(body['captured_at']) ?? null,
      failureCode: str(body['failure_code'])?.toLowerCase() ?? null,
    };
  },

  parseNotification(rawBody): ParsedNotification {
    const body = jsonObject(rawBody);
    const eventId = str(body?.['event_id']);
    const snapshot = ewalletTransformers.toSnapshot(body?.['data']);
    if (eventId === undefined || snapshot === undefined) return { ok: false, reason: 'not an e-wallet charge notification' };
    return { ok: true, eventId, snapshot };
  },

  refundBody(r: RefundRequest) {
    return { charge_id: r.providerReference, amount_minor: r.amountMinor.toString(), reason: r.reason };
  },
  toRefund: sandboxRefund,
  toSettlementEntries: sandboxSettlementEntries,
  simulateBody: sandboxSimulateBody,
};
