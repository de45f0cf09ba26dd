import type { Channel, Environment } from '../../kernel/index.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';

/** open → completed | expired (docs/checkout.md); the database trigger mirrors it. */
export type CheckoutStatus = 'open' | 'completed' | 'expired';

/** A checkout as stored (amounts in minor units). */
export interface Checkout {
  id: string;
  merchantId: string;
  environment: Environment;
  status: CheckoutStatus;
  amountMinor: bigint;
  currency: CurrencyCode;
  referenceNo: string;
  description: string | null;
  email: string | null;
  metadata: Record<string, string>;
  callbackUrl: string | null;
  /** The channels the payer may choose among, in the order shown. */
  channels: Channel[];
  successUrl: string | null;
  cancelUrl: string | null;
  clientSecretHash: string;
  apiVersion: string;
  expiresAt: Date;
  currentPaymentId: string | null;
  completedPaymentId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
  /** When the payer's personal data was erased (docs/payer-data.md); null while it is kept. */
  payerDataErasedAt: Date | null;
}

/** What a create asks for, validated. */
export interface CreateCheckoutInput {
  amountMinor: bigint;
  currency: CurrencyCode;
  referenceNo: string;
  description: string | null;
  email: string | null;
  metadata: Record<string, string>;
  callbackUrl: string | null;
  /** Absent: every channel routing can serve for the amount and currency. */
  channels: Channel[] | null;
  successUrl: string | null;
  cancelUrl: string | null;
  expiresInSeconds: number;
}

export const CHECKOUT_EXPIRES_IN = { minSeconds: 300, maxSeconds: 7 * 86_400, defaultSeconds: 86_400 } as const;
