import type { CurrencyCode } from '../../lib/currencies.ts';
import type { Channel, Environment } from '../../kernel/index.ts';

/**
 * The connector contract. A connector turns our domain requests into one provider's wire calls
 * and the provider's answers back into domain values. Connectors never touch the database or the
 * modules: they are called between transactions, with a deadline, and return outcomes as values.
 *
 * Every connector lives in its own folder (`src/connectors/<name>/`) with the connector and its
 * `transformers.ts` (wire types ↔ domain, one exhaustive status map), and must pass the shared
 * contract suite in `test/contract/connector-contract.ts`. docs/connectors.md explains how to add one.
 */

export interface Instrument {
  /** Provider-facing code: a bank code (`BCA`), a wallet (`DANA`), a counter partner (`ALFAMART`). */
  code: string;
  name: string;
}

export interface AmountBounds {
  minMinor: bigint;
  maxMinor: bigint;
}

export interface ConnectorCapabilities {
  /** Stable connector name, also the path segment of its inbound callback. */
  connector: string;
  displayName: string;
  channel: Channel;
  /** Simulators serve sandbox keys; production keys reach them only if an operator allows it. */
  simulator: boolean;
  instruments: readonly Instrument[];
  /** Accepted currencies and the amount bounds for each. */
  currencies: Readonly<Record<string, AmountBounds>>;
  /** How long issued instructions stay payable. Merchants may choose within [minMs, maxMs]. */
  instructionTtl: { defaultMs: number; minMs: number; maxMs: number };
  supports: { cancel: boolean; refund: boolean; partialRefund: boolean; settlement: boolean };
  /**
   * What a verified notification proves (docs/connectors.md, "Notification trust"):
   * - `signed`: the signature covers the whole body and a timestamp; its snapshot is applied.
   * - `query`: it only authenticates the sender (a static callback token, a signature over some
   *   fields): it is a trigger, and the processor applies what `queryCharge` then returns.
   */
  notificationTrust: NotificationTrust;
}

export type NotificationTrust = 'signed' | 'query';

export type Instructions =
  | {
      type: 'virtual_account';
      bank_code: string;
      bank_name: string;
      account_number: string;
      account_holder_name: string;
    }
  | {
      type: 'ewallet';
      provider: string;
      provider_name: string;
      checkout_url: string;
      deep_link: string;
      qr_string: string;
    }
  | {
      type: 'counter';
      partner: string;
      partner_name: string;
      payment_code: string;
      barcode_value: string;
      outlets: string[];
    };

/** Where a charge comes from on our side; sent to the provider as metadata and signed back in notifications. */
export interface ChargeOwner {
  merchantId: string;
  environment: Environment;
  paymentId: string;
}

export interface ChargeRequest {
  /** Our attempt id: the provider-side idempotency key. Re-sending it must not charge twice. */
  attemptId: string;
  paymentId: string;
  merchantId: string;
  merchantName: string;
  environment: Environment;
  amountMinor: bigint;
  currency: CurrencyCode;
  instrument: string;
  referenceNo: string;
  description: string | null;
  email: string | null;
  expiresAt: Date;
}

export type ChargeOutcome =
  /** The provider made (or had already made) the charge and gave payer instructions. */
  | { kind: 'issued'; providerReference: string; instructions: Instructions; expiresAt: Date }
  /** The provider said no: nothing exists at the provider for this attempt. */
  | { kind: 'refused'; code: string; message: string }
  /** No answer (timeout, connection lost): the provider may or may not have made the charge. */
  | { kind: 'unknown'; code: string; message: string };

/**
 * The provider's view of one charge, in our vocabulary. Every connector maps its wire statuses
 * onto these with one exhaustive table in its transformers.
 *
 * - `pending`: open, waiting for the payer
 * - `partially_paid`: the payer paid less than the amount; still open
 * - `paid`: the amount (or more) arrived
 * - `failed`: the provider declined or gave up
 * - `expired`: closed by the provider at its expiry without (full) payment
 * - `canceled`: closed on our request
 * - `reversed`: paid, then taken back by the provider (chargeback, bank reversal)
 */
export const PROVIDER_CHARGE_STATUSES = [
  'pending',
  'partially_paid',
  'paid',
  'failed',
  'expired',
  'canceled',
  'reversed',
] as const;
export type ProviderChargeStatus = (typeof PROVIDER_CHARGE_STATUSES)[number];

export interface ChargeSnapshot {
  providerReference: string;
  /** Our attempt id, echoed by the provider (its idempotency key / external id). */
  attemptId: string;
  /**
   * Null when the provider does not echo our metadata on this channel: then the attempt id, scoped
   * to the connector, finds the payment (attempt ids are unique).
   */
  owner: ChargeOwner | null;
  status: ProviderChargeStatus;
  amountMinor: bigint;
  /** What the payer has paid so far (may differ from amountMinor: under- or over-payment). */
  amountPaidMinor: bigint;
  currency: string;
  /**
   * The provider's per-charge change counter: it grows with every change of the charge, so a
   * notification older than one already applied is recognisable (out-of-order delivery).
   */
  sequence: number;
  /** When the payer paid, by the provider's clock (to tell an on-time payment from a late one). */
  paidAt: Date | null;
  /** Provider's failure reason when status is failed. */
  failureCode: string | null;
}

export interface CallContext {
  /** Aborted when the call's deadline passes. */
  signal: AbortSignal;
  now: Date;
}

export interface CancelRequest {
  attemptId: string;
  providerReference: string;
  /** Why we close the charge: the merchant canceled, or our expiry sweeper closes it. */
  reason: 'canceled' | 'expired';
}

export type CancelOutcome =
  /** The charge is closed at the provider (now or before); the snapshot says how it ended. */
  | { kind: 'closed'; snapshot: ChargeSnapshot }
  /** The provider will not close it because it is already paid (or otherwise final). */
  | { kind: 'not_cancelable'; snapshot: ChargeSnapshot }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'unknown'; code: string; message: string };

export interface QueryRequest {
  attemptId: string;
  providerReference: string;
}

export type QueryOutcome =
  { kind: 'found'; snapshot: ChargeSnapshot } | { kind: 'not_found' } | { kind: 'unknown'; code: string; message: string };

export interface RefundRequest {
  /** Our refund id: the provider-side idempotency key of the refund. */
  refundId: string;
  attemptId: string;
  providerReference: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  reason: string | null;
}

export type RefundOutcome =
  | { kind: 'succeeded'; providerRefundId: string }
  | { kind: 'pending'; providerRefundId: string }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'unknown'; code: string; message: string };

/** An inbound provider notification as received: the exact bytes and the headers. */
export interface InboundNotification {
  rawBody: string;
  headers: Readonly<Record<string, string | undefined>>;
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp' };

/** The provider's view of one refund (a refund answer or a refund notification). */
export interface RefundReport {
  providerRefundId: string;
  /** Our refund id, echoed by the provider (its idempotency key). */
  refundId: string;
  status: 'pending' | 'succeeded' | 'failed';
  failureCode: string | null;
}

export type ParsedNotification = { ok: true; eventId: string; snapshot: ChargeSnapshot } | { ok: false; reason: string };

export type ParsedRefundNotification = { ok: true; eventId: string; refund: RefundReport } | { ok: false; reason: string };

export interface SettlementEntry {
  providerReference: string;
  /** Our attempt id, echoed by the provider (its idempotency key / external id). */
  attemptId: string;
  /**
   * Who the charge belongs to, from the metadata we sent with it and the provider echoes on each
   * report line (as on notifications); null when the provider does not echo it (then the attempt
   * id alone attributes the line).
   */
  owner: ChargeOwner | null;
  currency: string;
  grossMinor: bigint;
  feeMinor: bigint;
  netMinor: bigint;
  settledAt: Date;
}

export type SettlementReportOutcome =
  { kind: 'report'; entries: SettlementEntry[] } | { kind: 'unknown'; code: string; message: string };

/**
 * Outcomes the sandbox simulate endpoint can ask a simulator for (`settled`: the provider settles
 * the paid charge now; it appears in its settlement report, which Tributary ingests).
 */
export type SimulatedOutcome = 'paid' | 'failed' | 'expired' | 'reversed' | 'settled';

export type SimulateOutcome =
  | { kind: 'accepted'; snapshot: ChargeSnapshot }
  | { kind: 'refused'; code: string; message: string }
  | { kind: 'unknown'; code: string; message: string };

/** Only simulators have this: the sandbox's "make the payer do X" button, through the provider. */
export interface SandboxControls {
  simulate(
    request: { attemptId: string; providerReference: string; outcome: SimulatedOutcome; amountMinor: bigint | null },
    ctx: CallContext,
  ): Promise<SimulateOutcome>;
}

export interface Connector {
  readonly capabilities: ConnectorCapabilities;
  /** Create the charge (idempotent by `attemptId`) and return the payer's instructions. */
  createCharge(request: ChargeRequest, ctx: CallContext): Promise<ChargeOutcome>;
  /** Close an open charge (void the code, close the VA). Idempotent. */
  cancelCharge(request: CancelRequest, ctx: CallContext): Promise<CancelOutcome>;
  /** The provider's current view of a charge (status sync, expiry). */
  queryCharge(request: QueryRequest, ctx: CallContext): Promise<QueryOutcome>;
  /** Refund all or part of a paid charge, idempotent by `refundId` (`POST /payment/{id}/refund`). */
  refund(request: RefundRequest, ctx: CallContext): Promise<RefundOutcome>;
  /** Signature and replay-window check over the exact received bytes. No I/O. */
  verifyNotification(notification: InboundNotification, now: Date): VerifyResult;
  /** The body of a verified notification in our vocabulary. No I/O. */
  parseNotification(rawBody: string): ParsedNotification;
  /**
   * A verified notification about a refund, or undefined when the body is not one (then it is a
   * charge notification for `parseNotification`). Absent on connectors whose provider does not
   * notify refunds (the refund sync job finishes their refunds). No I/O.
   */
  parseRefundNotification?(rawBody: string): ParsedRefundNotification | undefined;
  /** The provider's settlement report for [from, to): settlement ingestion and reconciliation read it. */
  fetchSettlementReport(request: { from: Date; to: Date }, ctx: CallContext): Promise<SettlementReportOutcome>;
  /** Present only on simulators. */
  readonly sandbox?: SandboxControls;
}
