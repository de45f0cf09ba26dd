import { toMajorNumber } from '../../lib/money.ts';
import { type PaymentLink, type PaymentLinkSummary, paymentLinkStatus } from './payment-link-types.ts';

/**
 * The API's view of a payment link at `now` (its status and remaining uses depend on the time).
 * `checkouts` counts the checkouts its visits made by status; `totals.collected` is what the
 * completed ones collected, in major units.
 */
export function paymentLinkView(link: PaymentLink, summary: PaymentLinkSummary, publicBaseUrl: string, now: Date) {
  const major = (minor: bigint) => toMajorNumber(minor, link.currency);
  return {
    id: link.id,
    object: 'payment_link' as const,
    status: paymentLinkStatus(link, now),
    url: paymentLinkUrl(publicBaseUrl, link.id),
    amount: link.amount.kind === 'fixed' ? major(link.amount.amountMinor) : null,
    amount_min: link.amount.kind === 'payer_entered' ? major(link.amount.minMinor) : null,
    amount_max: link.amount.kind === 'payer_entered' ? major(link.amount.maxMinor) : null,
    currency: link.currency,
    description: link.description,
    channels: link.channels === null ? null : [...link.channels],
    success_url: link.successUrl,
    cancel_url: link.cancelUrl,
    max_uses: link.maxUses,
    remaining_uses: link.maxUses === null ? null : Math.max(0, link.maxUses - summary.held),
    expires_at: link.expiresAt?.toISOString() ?? null,
    checkout_expires_in: link.checkoutExpiresInSeconds,
    checkouts: { open: summary.open, completed: summary.completed, expired: summary.expired },
    totals: { collected: major(summary.collectedMinor), completed_count: summary.completed },
    version: link.version,
    created_at: link.createdAt.toISOString(),
    updated_at: link.updatedAt.toISOString(),
    deactivated_at: link.deactivatedAt?.toISOString() ?? null,
  };
}

/** The hosted link page: the payer's page, served under /pay like a payment's and a checkout's. */
export function paymentLinkUrl(publicBaseUrl: string, linkId: string): string {
  return `${publicBaseUrl}/pay/${linkId}`;
}
