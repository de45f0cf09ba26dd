import { formatMajorAmount, parseMajorAmount } from '../../lib/money.ts';
import { isCurrencyCode } from '../../lib/currencies.ts';
import type { ChargeRequest, ChargeSnapshot, Instructions, ProviderChargeStatus } from '../core/connector.ts';
import {
  date,
  isRecord,
  mapStatus,
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

/**
 * Sandbox Bank wire format ↔ domain. Amounts are decimal strings in major units (`"150000.00"`),
 * parsed exactly with the money parser, never through a float.
 */
export const BANK_WIRE_STATUSES = ['ACTIVE', 'PARTIALLY_PAID', 'PAID', 'FAILED', 'EXPIRED', 'CLOSED', 'REVERSED'] as const;
export type BankWireStatus = (typeof BANK_WIRE_STATUSES)[number];

/** The one status map of this connector: every wire status, exhaustively (the type checks it). */
export const BANK_STATUS_MAP: Readonly<Record<BankWireStatus, ProviderChargeStatus>> = {
  ACTIVE: 'pending',
  PARTIALLY_PAID: 'partially_paid',
  PAID: 'paid',
  FAILED: 'failed',
  EXPIRED: 'expired',
  CLOSED: 'canceled',
  REVERSED: 'reversed',
};

/** The virtual account as the bank renders it. */
export interface BankVirtualAccount {
  id: string;
  external_id: string;
  bank_code: string;
  bank_name: string;
  account_number: string;
  name: string;
  amount: string;
  paid_amount: string;
  currency: string;
  status: BankWireStatus;
  version: number;
  expiration_date: string;
  paid_at: string | null;
  failure_code: string | null;
  metadata: Record<string, string>;
}

function amount(text: unknown, currency: string): bigint | undefined {
  if (typeof text !== 'string' || !isCurrencyCode(currency)) return undefined;
  const parsed = parseMajorAmount(text, currency);
  if (parsed.ok) return parsed.minor;
  // parseMajorAmount refuses zero (a payment amount is positive); a paid amount may be zero.
  return /^0(?:\.0+)?$/.test(text) ? 0n : undefined;
}

export const bankTransformers: Transformers = {
  createBody(r: ChargeRequest) {
    return {
      external_id: r.attemptId,
      bank_code: r.instrument,
      name: r.merchantName.slice(0, 60),
      amount: formatMajorAmount(r.amountMinor, r.currency),
      currency: r.currency,
      expiration_date: r.expiresAt.toISOString(),
      description: r.description ?? `Payment ${r.referenceNo}`,
      metadata: ownerMetadata(r),
    };
  },

  toIssued(body) {
    const va = bankTransformers.toSnapshot(body) === undefined ? undefined : (body as BankVirtualAccount);
    const expiresAt = date(va?.expiration_date);
    if (va === undefined || expiresAt === undefined) return undefined;
    const instructions: Instructions = {
      type: 'virtual_account',
      bank_code: va.bank_code,
      bank_name: va.bank_name,
      account_number: va.account_number,
      account_holder_name: va.name,
    };
    return { providerReference: va.id, instructions, expiresAt };
  },

  toSnapshot(body): ChargeSnapshot | undefined {
    if (!isRecord(body) || str(body['account_number']) === undefined) return undefined;
    const currency = str(body['currency']) ?? '';
    return snapshotFrom({
      id: body['id'],
      externalId: body['external_id'],
      metadata: body['metadata'],
      status: mapStatus(BANK_STATUS_MAP, body['status']),
      amountMinor: amount(body['amount'], currency),
      amountPaidMinor: amount(body['paid_amount'], currency),
      currency,
      sequence: body['version'],
      paidAt: body['paid_at'],
      failureCode: body['failure_code'],
    });
  },

  parseNotification: (rawBody) => parseEnvelope(rawBody, { eventId: 'id', charge: 'data' }, bankTransformers.toSnapshot),
  parseRefundNotification: sandboxRefundNotification,
  refundBody: sandboxRefundBody,
  toRefund: sandboxRefund,
  toSettlementEntries: sandboxSettlementEntries,
  simulateBody: sandboxSimulateBody,
};
