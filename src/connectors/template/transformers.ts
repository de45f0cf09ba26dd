import type {
  ChargeRequest,
  ChargeSnapshot,
  Instructions,
  ProviderChargeStatus,
  RefundRequest,
  SettlementEntry,
} from '../core/connector.ts';
import {
  date,
  isRecord,
  mapStatus,
  minor,
  ownerFromMetadata,
  ownerMetadata,
  parseEnvelope,
  snapshotFrom,
  str,
  type Transformers,
} from '../core/http-connector.ts';

/**
 * TEMPLATE — copy this folder to start a connector (docs/connectors.md). It is a complete example
 * for a fictional provider, "Example Bank", whose virtual-account API looks like this:
 *
 *   POST /v2/payment_requests            create (Idempotency-Key: our attempt id)
 *   GET  /v2/payment_requests/{id}       read
 *   POST /v2/payment_requests/{id}/cancel
 *   POST /v2/refunds                     (Idempotency-Key: our refund id)
 *   GET  /v2/settlements?from=&to=
 *   notifications: {"event_id": …, "payment_request": {…}} signed in `example-signature`
 *
 * Replace the wire types, the status map and the field mapping with your provider's. Keep: one
 * exhaustive status map typed over the provider's status words; amounts as integers of minor units
 * (parse decimal strings exactly, never through a float); our attempt id as the provider's
 * idempotency key and external reference; our owner metadata on the charge.
 */
export const EXAMPLE_WIRE_STATUSES = ['OPEN', 'PARTIAL', 'PAID', 'DECLINED', 'EXPIRED', 'CANCELLED', 'CHARGEBACK'] as const;
export type ExampleWireStatus = (typeof EXAMPLE_WIRE_STATUSES)[number];

/** The one status map. `Record<ExampleWireStatus, …>` makes the compiler check it is exhaustive. */
export const EXAMPLE_STATUS_MAP: Readonly<Record<ExampleWireStatus, ProviderChargeStatus>> = {
  OPEN: 'pending',
  PARTIAL: 'partially_paid',
  PAID: 'paid',
  DECLINED: 'failed',
  EXPIRED: 'expired',
  CANCELLED: 'canceled',
  CHARGEBACK: 'reversed',
};

export const exampleTransformers: Transformers = {
  createBody(r: ChargeRequest) {
    return {
      reference: r.attemptId,
      bank: r.instrument,
      holder: r.merchantName.slice(0, 60),
      amount_minor: r.amountMinor.toString(),
      currency: r.currency,
      expires_at: r.expiresAt.toISOString(),
      metadata: ownerMetadata(r),
    };
  },

  toIssued(body) {
    if (exampleTransformers.toSnapshot(body) === undefined || !isRecord(body)) return undefined;
    const va = str(body['va_number']);
    const bank = str(body['bank']);
    const expiresAt = date(body['expires_at']);
    if (va === undefined || bank === undefined || expiresAt === undefined) return undefined;
    const instructions: Instructions = {
      type: 'virtual_account',
      bank_code: bank,
      bank_name: str(body['bank_name']) ?? bank,
      account_number: va,
      account_holder_name: str(body['holder']) ?? '',
    };
    return { providerReference: String(body['id']), instructions, expiresAt };
  },

  toSnapshot(body): ChargeSnapshot | undefined {
    if (!isRecord(body)) return undefined;
    return snapshotFrom({
      id: body['id'],
      externalId: body['reference'],
      metadata: body['metadata'],
      status: mapStatus(EXAMPLE_STATUS_MAP, body['status']),
      amountMinor: minor(body['amount_minor']),
      amountPaidMinor: minor(body['paid_minor']),
      currency: body['currency'],
      sequence: body['revision'],
      paidAt: body['paid_at'],
      failureCode: body['decline_reason'],
    });
  },

  parseNotification: (rawBody) =>
    parseEnvelope(rawBody, { eventId: 'event_id', charge: 'payment_request' }, exampleTransformers.toSnapshot),

  refundBody(r: RefundRequest) {
    return { payment_request: r.providerReference, amount_minor: r.amountMinor.toString() };
  },

  toRefund(body) {
    if (!isRecord(body) || str(body['id']) === undefined) return undefined;
    return {
      providerRefundId: String(body['id']),
      status: body['state'] === 'DONE' ? 'succeeded' : 'pending',
      failureCode: null,
    };
  },

  toSettlementEntries(body) {
    if (!isRecord(body) || !Array.isArray(body['lines'])) return undefined;
    const out: SettlementEntry[] = [];
    for (const line of body['lines'] as unknown[]) {
      if (!isRecord(line)) return undefined;
      const gross = minor(line['gross_minor']);
      const fee = minor(line['fee_minor']);
      const settledAt = date(line['value_date']);
      const ref = str(line['payment_request']);
      const reference = str(line['reference']);
      const currency = str(line['currency']);
      if (gross === undefined || fee === undefined || settledAt === undefined || ref === undefined || reference === undefined) {
        return undefined;
      }
      if (currency === undefined || fee > gross) return undefined;
      out.push({
        providerReference: ref,
        attemptId: reference,
        owner: ownerFromMetadata(line['metadata']) ?? null,
        currency,
        grossMinor: gross,
        feeMinor: fee,
        netMinor: gross - fee,
        settledAt,
      });
    }
    return out;
  },
};
