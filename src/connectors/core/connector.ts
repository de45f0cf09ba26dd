import type { CurrencyCode } from '../../lib/currencies.ts';

/**
 * The connector contract. A connector turns our domain requests into one provider's wire calls
 * and the provider's answers back into domain values. Connectors never touch the database or the
 * modules: they are called between transactions, with a deadline, and return outcomes as values.
 */
export type Channel = 'bank' | 'ewallet' | 'counter';
export const CHANNELS: readonly Channel[] = ['bank', 'ewallet', 'counter'];
export type Environment = 'sandbox' | 'production';

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
  /** How long issued instructions stay payable. */
  instructionTtl: { defaultMs: number; minMs: number; maxMs: number };
  supports: { cancel: boolean; refund: boolean; partialRefund: boolean; settlement: boolean };
}

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

export interface CallContext {
  /** Aborted when the call's deadline passes. */
  signal: AbortSignal;
  now: Date;
}

export interface Connector {
  readonly capabilities: ConnectorCapabilities;
  createCharge(request: ChargeRequest, ctx: CallContext): Promise<ChargeOutcome>;
}
