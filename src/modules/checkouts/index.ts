/** The public entry of the checkouts module (docs/checkout.md). */
export { completeCheckoutOfPayment } from './complete-checkout.ts';
export { type CheckoutDeps, createCheckout } from './create-checkout.ts';
export { type ExpireDeps, expireCheckoutForMerchant, expireDueCheckouts } from './expire-checkout.ts';
export { type SelectDeps, type SelectInput, selectCheckoutMethod } from './select-checkout.ts';
export { checkoutPaymentIds, findCheckout, listCheckouts, paymentIdsOfCheckouts } from './checkout-repo.ts';
export { type CheckoutSelection, checkoutIdsOfPayments, listCheckoutSelections } from './checkout-query-repo.ts';
export type { Checkout, CheckoutStatus, CreateCheckoutInput } from './checkout-types.ts';
export { CHECKOUT_EXPIRES_IN } from './checkout-types.ts';
export { checkoutView } from './checkout-view.ts';
export { type SelectAuthority } from './select-checkout.ts';
export { type ChannelMethods, type CheckoutPageState, type PayerCheckout, payerCheckout } from './payer-checkout.ts';
