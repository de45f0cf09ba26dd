import type { Queryable } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';
import { findPayment, paymentView } from '../payments/index.ts';
import { checkoutIdOfPayment, checkoutPaymentIds, closeCheckout, lockCheckout } from './checkout-repo.ts';
import { insertCheckoutEvent } from './checkout-events.ts';
import { checkoutView } from './checkout-view.ts';

/**
 * The payment lifecycle's success hook (LifecycleDeps.paymentSucceeded), in the transaction that
 * made the payment succeed: the payment's open checkout becomes `completed` with it, and
 * `checkout.completed` carries the checkout with the payment expanded. A checkout is completed once:
 * its payments share one reference_no, so no second one can succeed while this one is live.
 */
export async function completeCheckoutOfPayment(
  tx: Queryable,
  publicBaseUrl: string,
  succeeded: { id: string; merchantId: string; environment: Environment },
  now: Date,
): Promise<void> {
  const paymentId = succeeded.id;
  const checkoutId = await checkoutIdOfPayment(tx, paymentId);
  if (checkoutId === undefined) return;
  const before = await lockCheckout(tx, checkoutId);
  if (before === undefined || before.status !== 'open') return;
  const payment = await findPayment(tx, succeeded.merchantId, succeeded.environment, paymentId);
  if (payment === undefined) return;
  const after = await closeCheckout(tx, before, { status: 'completed', paymentId }, now);
  const view = checkoutView(after, await checkoutPaymentIds(tx, after.id), publicBaseUrl, paymentView(payment, publicBaseUrl));
  await insertCheckoutEvent(tx, 'checkout.completed', before, after, view);
}
