import type { Environment, KeyedResult, LifecycleDeps, Principal } from '../../kernel/index.ts';
import type { CancelPaymentDeps } from '../payments/index.ts';
import { cancelCheckoutPayment, checkoutPrincipal } from './checkout-payments.ts';
import { checkoutPaymentIds, closeCheckout, dueCheckouts, lockCheckout } from './checkout-repo.ts';
import type { Checkout } from './checkout-types.ts';
import { insertCheckoutEvent } from './checkout-events.ts';
import { checkoutView } from './checkout-view.ts';
import { recordAudit } from '../audit/index.ts';

export interface ExpireDeps extends LifecycleDeps {
  cancelPayment: CancelPaymentDeps;
}

type Expired = { kind: 'expired'; checkout: Checkout } | { kind: 'not_open'; checkout: Checkout } | { kind: 'not_found' };

/**
 * Expires an open checkout (the merchant's POST /checkout/{id}/expire, or the sweeper once
 * `expires_at` passed) with `checkout.expired` in the same transaction; then cancels its pending
 * payment at the provider, outside the transaction. A selection running meanwhile loses its fenced
 * finish and cancels the payment it made. Expiring an expired checkout answers it unchanged.
 */
export async function expireCheckout(
  deps: ExpireDeps,
  owner: { merchantId: string; environment: Environment },
  checkoutId: string,
  /** The merchant's principal when a key or a person asked (recorded in the audit log); absent for the sweeper. */
  by?: Principal,
): Promise<Expired> {
  const result = await deps.store.transaction(async (tx): Promise<Expired> => {
    const before = await lockCheckout(tx, checkoutId);
    // Another merchant's or the other environment's checkout is not found, and nothing changes.
    if (before === undefined || before.merchantId !== owner.merchantId || before.environment !== owner.environment) {
      return { kind: 'not_found' };
    }
    if (before.status !== 'open') return { kind: 'not_open', checkout: before };
    const after = await closeCheckout(tx, before, { status: 'expired' }, deps.clock.now());
    const view = checkoutView(after, await checkoutPaymentIds(tx, after.id), deps.publicBaseUrl);
    await insertCheckoutEvent(tx, 'checkout.expired', before, after, view);
    if (by !== undefined) {
      await recordAudit(tx, by, {
        action: 'checkout.expired',
        objectType: 'checkout',
        objectId: after.id,
        changes: { status: { from: before.status, to: after.status } },
        at: deps.clock.now(),
      });
    }
    return { kind: 'expired', checkout: after };
  });
  if (result.kind === 'expired' && result.checkout.currentPaymentId !== null) {
    await cancelPendingPayment(deps, result.checkout, result.checkout.currentPaymentId);
  }
  return result;
}

/** The merchant's expire, answered as a view (200) or a failure. */
export async function expireCheckoutForMerchant(
  deps: ExpireDeps,
  principal: Principal,
  checkoutId: string,
): Promise<KeyedResult> {
  const result = await expireCheckout(deps, principal, checkoutId, principal);
  if (result.kind === 'not_found') {
    return { kind: 'failure', code: 'resource_not_found', message: 'No such checkout.', details: [] };
  }
  if (result.kind === 'not_open' && result.checkout.status === 'completed') {
    return {
      kind: 'failure',
      code: 'checkout_not_open',
      message: 'The checkout is completed.',
      details: [{ status: 'completed' }],
    };
  }
  const payments = await checkoutPaymentIds(deps.store, checkoutId);
  return {
    kind: 'response',
    status: 200,
    body: JSON.stringify(checkoutView(result.checkout, payments, deps.publicBaseUrl)),
    replayed: false,
  };
}

async function cancelPendingPayment(deps: ExpireDeps, checkout: Checkout, paymentId: string): Promise<void> {
  const principal = await checkoutPrincipal(deps.store, checkout);
  if (principal === undefined) return;
  const result = await cancelCheckoutPayment(deps.cancelPayment, principal, checkout, paymentId);
  // A provider that does not answer leaves the payment to its own expiry (the sweeper ends it).
  if (result?.kind === 'failure') {
    deps.log.warn(
      { checkout_id: checkout.id, payment_id: paymentId, code: result.code },
      'could not cancel the payment of an expired checkout',
    );
  }
}

/** The sweeper's pass: expires open checkouts past `expires_at` (bounded per run). */
export async function expireDueCheckouts(deps: ExpireDeps, limit: number): Promise<number> {
  const due = await dueCheckouts(deps.store, deps.clock.now(), limit);
  for (const checkout of due) await expireCheckout(deps, checkout, checkout.id);
  return due.length;
}
