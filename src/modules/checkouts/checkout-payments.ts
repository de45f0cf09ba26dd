import type { Store } from '../../db/store.ts';
import type { KeyedResult, Principal } from '../../kernel/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { type CancelPaymentDeps, cancelPayment, findPayment } from '../payments/index.ts';
import type { Checkout } from './checkout-types.ts';

/** Whom a checkout's payments belong to: its merchant and environment, at its API version. */
export async function checkoutPrincipal(store: Store, checkout: Checkout): Promise<Principal | undefined> {
  const merchant = await findMerchant(store, checkout.merchantId);
  if (merchant === undefined) return undefined;
  return {
    merchantId: checkout.merchantId,
    merchantName: merchant.name,
    environment: checkout.environment,
    apiVersion: checkout.apiVersion,
    actor: { kind: 'system', name: `checkout:${checkout.id}` },
  };
}

/**
 * Cancels a payment of the checkout if it is still pending (a crashed selection's id may name no
 * payment at all). Its Idempotency-Key is derived from the two ids, so a retry replays the cancel.
 * `undefined`: nothing to cancel, or the payment was paid or closed first (the payment lifecycle
 * decided; a success completes the checkout).
 */
export async function cancelCheckoutPayment(
  deps: CancelPaymentDeps,
  principal: Principal,
  checkout: Checkout,
  paymentId: string,
): Promise<KeyedResult | undefined> {
  const payment = await findPayment(deps.store, checkout.merchantId, checkout.environment, paymentId);
  if (payment?.status !== 'pending') return undefined;
  const result = await cancelPayment(
    deps,
    principal,
    paymentId,
    { cancellationReason: 'abandoned' },
    `checkout:${checkout.id}:cancel:${paymentId}`,
  );
  if (result.kind === 'failure' && result.code === 'payment_state_conflict') return undefined;
  return result;
}
