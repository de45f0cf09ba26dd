import type { Channel, Environment } from '../../kernel/index.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { CHECKOUT_EXPIRES_IN } from '../checkouts/index.ts';

/**
 * What a link's view says (docs/checkout.md, section 8): `inactive` is stored (deactivation is
 * final); `expired` is derived from `expires_at` and the time, so no job has to flip it.
 */
export type PaymentLinkStatus = 'active' | 'inactive' | 'expired';

/** The amount a link asks for: fixed, or entered by the payer within bounds (minor units). */
export type LinkAmount = { kind: 'fixed'; amountMinor: bigint } | { kind: 'payer_entered'; minMinor: bigint; maxMinor: bigint };

/** A payment link as stored. */
export interface PaymentLink {
  id: string;
  merchantId: string;
  environment: Environment;
  active: boolean;
  amount: LinkAmount;
  currency: CurrencyCode;
  description: string | null;
  /** Null: every channel that can serve the amount at the visit. */
  channels: Channel[] | null;
  successUrl: string | null;
  cancelUrl: string | null;
  /** Null: unlimited. */
  maxUses: number | null;
  /** Null: never. */
  expiresAt: Date | null;
  checkoutExpiresInSeconds: number;
  apiVersion: string;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  deactivatedAt: Date | null;
}

/** What a create asks for, validated by the route (exact money, URLs). */
export interface CreatePaymentLinkInput {
  amount: LinkAmount;
  currency: CurrencyCode;
  description: string | null;
  channels: Channel[] | null;
  successUrl: string | null;
  cancelUrl: string | null;
  maxUses: number | null;
  expiresAt: Date | null;
  checkoutExpiresInSeconds: number;
}

/** A link's checkouts by status and what they collected (the view's `checkouts` and `totals`). */
export interface PaymentLinkSummary {
  open: number;
  completed: number;
  expired: number;
  collectedMinor: bigint;
  /** Uses held now (docs/checkout.md section 8): what `max_uses` is compared with. */
  held: number;
}

export const EMPTY_SUMMARY: PaymentLinkSummary = { open: 0, completed: 0, expired: 0, collectedMinor: 0n, held: 0 };

/** The checkouts a link makes live this long unless it says otherwise: a payer is at the page now. */
export const LINK_CHECKOUT_EXPIRES_IN = {
  minSeconds: CHECKOUT_EXPIRES_IN.minSeconds,
  maxSeconds: CHECKOUT_EXPIRES_IN.maxSeconds,
  defaultSeconds: 3_600,
} as const;

/** A link's status at `now`. */
export function paymentLinkStatus(link: PaymentLink, now: Date): PaymentLinkStatus {
  if (!link.active) return 'inactive';
  if (link.expiresAt !== null && link.expiresAt <= now) return 'expired';
  return 'active';
}
