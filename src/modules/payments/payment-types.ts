import type { Instructions } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { Candidate, TraceEntry } from '../routing/index.ts';
import type { PaymentStatus } from './payment-states.ts';
import type { Channel, ChannelRequest, Environment } from '../../kernel/index.ts';

export interface PaymentMethod {
  channel: Channel;
  connector: string;
  instrument: string;
  instrument_name: string;
}

/**
 * How the payment was routed, stored on the payment and shown as `routing`: the ordered
 * candidates, the trace of why each connector is in or out, and the attempts made (failover).
 */
export interface PaymentRouting {
  candidates: Candidate[];
  trace: TraceEntry[];
  attempts: { attempt_id: string; connector: string; status: AttemptStatus; error_code: string | null }[];
}

export type LatePaymentResolution = 'accepted' | 'refund_required';
/**
 * Why a late payment was resolved as it was: `paid_before_expiry` (the payer was on time, only
 * the news was late: always accepted), `merchant_policy` (the merchant's late_payment_policy),
 * `reference_no_reused` (a newer live payment holds the reference, so this one cannot become
 * succeeded again), `payment_failed` (a failed payment never becomes succeeded), `stray_attempt`
 * (money arrived on an attempt that was never shown to the payer).
 */
export type LatePaymentReason =
  'paid_before_expiry' | 'merchant_policy' | 'reference_no_reused' | 'payment_failed' | 'stray_attempt';

/** A payment that arrived after the payment closed: never dropped, always recorded. */
export interface LatePayment {
  attempt_id: string;
  received_at: string;
  amount_minor: string;
  resolution: LatePaymentResolution;
  reason: LatePaymentReason;
}

export type CancellationReason = 'requested_by_customer' | 'duplicate' | 'fraudulent' | 'abandoned';
export const CANCELLATION_REASONS: readonly CancellationReason[] = [
  'requested_by_customer',
  'duplicate',
  'fraudulent',
  'abandoned',
];

/** A payment as stored (amounts in minor units). */
export interface Payment {
  id: string;
  merchantId: string;
  environment: Environment;
  status: PaymentStatus;
  amountMinor: bigint;
  currency: CurrencyCode;
  referenceNo: string;
  description: string | null;
  channelRequested: ChannelRequest;
  channel: Channel | null;
  paymentMethod: PaymentMethod | null;
  instructions: Instructions | null;
  metadata: Record<string, string>;
  email: string | null;
  callbackUrl: string | null;
  apiVersion: string;
  version: number;
  expiresAt: Date;
  failureCode: string | null;
  failureMessage: string | null;
  amountRefundedMinor: bigint;
  createdAt: Date;
  updatedAt: Date;
  succeededAt: Date | null;
  closedAt: Date | null;
  routing: PaymentRouting | null;
  /** What the payer paid (provider-reported); 0 until a payment arrives. */
  amountPaidMinor: bigint;
  latePayment: LatePayment | null;
  cancellationReason: CancellationReason | null;
  /** Why the provider took the payment back (`chargeback`, `counter_reversal`, or the provider's code). */
  reversalReason: string | null;
  /** Set once a provider settled the payment (docs/money.md); fee and net are its settlement line. */
  settlementId: string | null;
  settledAt: Date | null;
  feeMinor: bigint | null;
  netMinor: bigint | null;
  /** When the payer's personal data was erased (docs/payer-data.md); null while it is kept. */
  payerDataErasedAt: Date | null;
}

export type AttemptStatus = 'started' | 'issued' | 'failed' | 'succeeded' | 'expired' | 'canceled' | 'reversed';

export interface Attempt {
  id: string;
  paymentId: string;
  seq: number;
  connector: string;
  channel: Channel;
  instrument: string | null;
  status: AttemptStatus;
  providerReference: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
  /** The expiry asked of the provider (null on attempts made before it was recorded). */
  chargeExpiresAt: Date | null;
}

/** What a provider report records on an attempt. */
export interface AttemptProviderFields {
  status: AttemptStatus;
  providerStatus: string;
  providerSequence: number;
  amountPaidMinor: bigint;
  paidAt: Date | null;
  latePaymentAt: Date | null;
  latePaymentResolution: LatePaymentResolution | null;
}

/** An attempt with what its provider reported (read by the lifecycle code). */
export interface AttemptState extends Attempt {
  merchantId: string;
  environment: Environment;
  providerStatus: string | null;
  providerSequence: number;
  amountPaidMinor: bigint;
  paidAt: Date | null;
  latePaymentAt: Date | null;
  latePaymentResolution: LatePaymentResolution | null;
  /** The provider's reference of the charge a late payment arrived on (set with a refund_required one). */
  lateProviderReference: string | null;
  nextSyncAt: Date | null;
  syncCount: number;
}

/** What a create asks for, validated (amounts in minor units). */
export interface CreatePaymentInput {
  amountMinor: bigint;
  currency: CurrencyCode;
  referenceNo: string;
  description: string | null;
  channel: ChannelRequest;
  callbackUrl: string | null;
  metadata: Record<string, string>;
  email: string | null;
}
