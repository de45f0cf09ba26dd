import type { Environment } from '../../kernel/index.ts';
import type { Payment, PaymentRouting, CreatePaymentInput } from './payment-types.ts';

/** Who a new payment belongs to and what was asked for; everything else starts empty. */
export interface NewPaymentInit {
  id: string;
  merchantId: string;
  environment: Environment;
  apiVersion: string;
  request: CreatePaymentInput;
  /** Provisional until a provider issues instructions with its own expiry. */
  expiresAt: Date;
  now: Date;
  routing: PaymentRouting | null;
}

/**
 * A payment as a create first writes it: `processing`, version 1, no method, no instructions, no
 * money moved. The one place the full record is spelled out; the docs' examples, the benchmark's
 * ceiling and the test fixtures start from it too.
 */
export function newPayment(init: NewPaymentInit): Payment {
  const { request } = init;
  return {
    id: init.id,
    merchantId: init.merchantId,
    environment: init.environment,
    status: 'processing',
    amountMinor: request.amountMinor,
    currency: request.currency,
    referenceNo: request.referenceNo,
    description: request.description,
    channelRequested: request.channel,
    channel: null,
    paymentMethod: null,
    instructions: null,
    metadata: request.metadata,
    email: request.email,
    callbackUrl: request.callbackUrl,
    apiVersion: init.apiVersion,
    version: 1,
    expiresAt: init.expiresAt,
    failureCode: null,
    failureMessage: null,
    amountRefundedMinor: 0n,
    createdAt: init.now,
    updatedAt: init.now,
    succeededAt: null,
    closedAt: null,
    routing: init.routing,
    amountPaidMinor: 0n,
    latePayment: null,
    cancellationReason: null,
    reversalReason: null,
    settlementId: null,
    settledAt: null,
    feeMinor: null,
    netMinor: null,
    payerDataErasedAt: null,
  };
}
