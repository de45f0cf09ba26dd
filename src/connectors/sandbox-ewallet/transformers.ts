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
import {
  sandboxRefund,
  sandboxRefundBody,
  sandboxRefundNotification,
  sandboxSettlementEntries,
  sandboxSimulateBody,
} from '../core/sandbox-wire.ts';

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
    if (!isRecord(body)) return undefined;
    return snapshotFrom({
      id: body['id'],
      externalId: body['reference_id'],
      metadata: body['metadata'],
      status: mapStatus(EWALLET_STATUS_MAP, body['status']),
      amountMinor: minor(body['amount_minor']),
      amountPaidMinor: minor(body['captured_minor']),
      currency: body['currency'],
      sequence: body['revision'],
      paidAt: body['captured_at'],
      failureCode: body['failure_code'],
    });
  },

  parseNotification: (rawBody) => parseEnvelope(rawBody, { eventId: 'event_id', charge: 'data' }, ewalletTransformers.toSnapshot),
  parseRefundNotification: sandboxRefundNotification,
  refundBody: sandboxRefundBody,
  toRefund: sandboxRefund,
  toSettlementEntries: sandboxSettlementEntries,
  simulateBody: sandboxSimulateBody,
};
