import { toMajorNumber } from '../../lib/money.ts';
import type { Instructions } from '../../connectors/core/connector.ts';
import type { Payment } from './payment-types.ts';

/**
 * The payment as the API shows it: in responses, in stored idempotent responses and in event
 * snapshots. Amounts become JSON numbers in major units here and nowhere else.
 */
export function paymentView(p: Payment, publicBaseUrl: string) {
  const instructions = p.instructions === null ? null : withAmountAndExpiry(p.instructions, p);
  return {
    id: p.id,
    object: 'payment' as const,
    environment: p.environment,
    status: p.status,
    amount: toMajorNumber(p.amountMinor, p.currency),
    currency: p.currency,
    amount_refunded: toMajorNumber(p.amountRefundedMinor, p.currency),
    reference_no: p.referenceNo,
    description: p.description,
    channel: p.channel,
    channel_requested: p.channelRequested,
    payment_method: p.paymentMethod,
    instructions,
    pay_url: `${publicBaseUrl}/pay/${p.id}`,
    metadata: p.metadata,
    email: p.email,
    callback_url: p.callbackUrl,
    failure_code: p.failureCode,
    failure_message: p.failureMessage,
    version: p.version,
    api_version: p.apiVersion,
    expires_at: p.expiresAt.toISOString(),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    succeeded_at: p.succeededAt?.toISOString() ?? null,
    closed_at: p.closedAt?.toISOString() ?? null,
    amount_paid: toMajorNumber(p.amountPaidMinor, p.currency),
    late_payment:
      p.latePayment === null
        ? null
        : {
            attempt_id: p.latePayment.attempt_id,
            received_at: p.latePayment.received_at,
            amount: toMajorNumber(BigInt(p.latePayment.amount_minor), p.currency),
            resolution: p.latePayment.resolution,
            reason: p.latePayment.reason,
          },
    cancellation_reason: p.cancellationReason,
    reversal_reason: p.reversalReason,
    routing: p.routing,
    settlement_id: p.settlementId,
    settled_at: p.settledAt?.toISOString() ?? null,
    fee: p.feeMinor === null ? null : toMajorNumber(p.feeMinor, p.currency),
    net: p.netMinor === null ? null : toMajorNumber(p.netMinor, p.currency),
    payer_data_erased_at: p.payerDataErasedAt?.toISOString() ?? null,
  };
}

/**
 * The provider's instructions with the payment's amount, currency and expiry (a key the provider
 * also sent keeps its place and takes the payment's value). Object.assign rather than
 * `{ ...instructions, amount, … }`: see decision 0028 — on Node 20 a spread with added
 * properties on a request path kept each request's objects alive across young collections.
 */
function withAmountAndExpiry<I extends Instructions>(instructions: I, p: Payment) {
  return Object.assign({}, instructions, {
    amount: toMajorNumber(p.amountMinor, p.currency),
    currency: p.currency,
    expires_at: p.expiresAt.toISOString(),
  });
}

export type PaymentView = ReturnType<typeof paymentView>;
