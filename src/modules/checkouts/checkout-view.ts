import { toMajorNumber } from '../../lib/money.ts';
import type { paymentView } from '../payments/index.ts';
import type { Checkout } from './checkout-types.ts';

/**
 * The API's view of a checkout. `payment` is the current payment's id (or null), or that payment's
 * full view where the answer expands it (select, `checkout.completed`); `payments` lists every
 * payment the checkout made, oldest first. The client secret is never part of it: only the create
 * answer carries it (createCheckout adds it).
 */
export function checkoutView(
  c: Checkout,
  payments: readonly string[],
  publicBaseUrl: string,
  expandedPayment?: ReturnType<typeof paymentView>,
) {
  return {
    id: c.id,
    object: 'checkout' as const,
    status: c.status,
    url: checkoutUrl(publicBaseUrl, c.id),
    amount: toMajorNumber(c.amountMinor, c.currency),
    currency: c.currency,
    reference_no: c.referenceNo,
    description: c.description,
    email: c.email,
    metadata: c.metadata,
    callback_url: c.callbackUrl,
    channels: c.channels,
    success_url: c.successUrl,
    cancel_url: c.cancelUrl,
    payment: expandedPayment ?? c.completedPaymentId ?? c.currentPaymentId,
    payments: [...payments],
    expires_at: c.expiresAt.toISOString(),
    version: c.version,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    closed_at: c.closedAt?.toISOString() ?? null,
    payer_data_erased_at: c.payerDataErasedAt?.toISOString() ?? null,
  };
}

/** The hosted checkout page: the payer's page, served under /pay like a payment's. */
export function checkoutUrl(publicBaseUrl: string, checkoutId: string): string {
  return `${publicBaseUrl}/pay/${checkoutId}`;
}
