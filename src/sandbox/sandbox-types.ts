import type { Clock } from '../lib/clock.ts';
import type { CurrencyCode } from '../lib/currencies.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * The shapes every part of a sandbox provider shares: the charge, what a create asks for, the
 * provider's wire dialect and what a call answers. The parts themselves are charge-book.ts,
 * refund-book.ts, notification-outbox.ts and settlement-reports.ts, composed by sandbox-provider.ts.
 */
export type SandboxChargeState = 'active' | 'partially_paid' | 'paid' | 'failed' | 'expired' | 'closed' | 'reversed';

export interface SandboxCharge {
  id: string;
  /** The caller's idempotency key (Tributary's attempt id). */
  externalId: string;
  fingerprint: string;
  instrument: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  amountPaidMinor: bigint;
  amountRefundedMinor: bigint;
  state: SandboxChargeState;
  /** Grows by one with every change; sent in every rendering so receivers can order them. */
  sequence: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  paidAt: Date | null;
  failureCode: string | null;
  settledAt: Date | null;
  holderName: string;
  description: string | null;
  metadata: Record<string, string>;
}

export interface CreateInput {
  externalId: string;
  instrument: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  expiresAt: Date;
  holderName: string;
  description: string | null;
  metadata: Record<string, string>;
}

/** What a handler answers: a status and a JSON body, optionally held open (a simulated hang). */
export interface ProviderReply {
  status: number;
  body: unknown;
  /** Keep the response back this long (null: until the client gives up). */
  holdMs?: number | null;
  /** Keep the response back until this settles (bounded like holdMs). */
  holdUntil?: Promise<void>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** The wire dialect of one provider. */
export interface ProviderDialect {
  /** Tributary's connector name: notifications go to /provider/<connector>/callback. */
  connector: string;
  /** Path of the charge collection, e.g. `/bank/v1/virtual_accounts`. */
  chargesPath: string;
  /** Last path segment of the close operation (`close`, `void`, `cancel`). */
  closeVerb: string;
  refundsPath: string;
  settlementsPath: string;
  referencePrefix: string;
  signatureHeader: string;
  instruments: readonly { code: string; name: string }[];
  acceptsPartialPayment: boolean;
  acceptsOverpayment: boolean;
  supportsRefund: boolean;
  /** Magic amount (whole major units) this provider declines, so `auto` can be seen failing over. */
  declineAmount: bigint;
  /** Provider fee on a settled payment (integer arithmetic only). */
  feeMinor(grossMinor: bigint): bigint;
  parseCreate(body: unknown): Parsed<CreateInput>;
  renderCharge(charge: SandboxCharge): Record<string, unknown>;
  renderNotification(eventId: string, charge: SandboxCharge, at: Date): Record<string, unknown>;
}

export interface ProviderOptions {
  clock: Clock;
  apiKey: string;
  webhookSecret: string;
  /** Tributary's base address (notifications go to <base>/provider/<connector>/callback). */
  callbackBaseUrl: () => string;
  log: Logger;
  /** Send notifications as soon as they are queued (off in tests, which call dispatchDue()). */
  autoDispatch: boolean;
  fetchImpl?: typeof fetch;
  /**
   * The settlement schedule: a paid charge settles this long after it was paid, by the provider's
   * clock (null: only when asked, with the `settle` control). Default SETTLEMENT_DELAY_MS
   * (settlement-reports.ts).
   */
  settlementDelayMs?: number | null;
}

/** The providers' error format on the wire (`{error_code, message}`). */
export function errorReply(status: number, code: string, message: string): ProviderReply {
  return { status, body: { error_code: code, message } };
}
