/** The public entry of the payment-links module (docs/checkout.md, section 8). */
export { CREATE_PAYMENT_LINK_OPERATION, type PaymentLinkDeps, createPaymentLink } from './create-payment-link.ts';
export { deactivatePaymentLinkForMerchant } from './deactivate-payment-link.ts';
export {
  type LinkAvailability,
  type LinkVisitInput,
  type LinkVisitResult,
  paymentLinkForPayer,
  startCheckoutFromLink,
} from './start-checkout-from-link.ts';
export { findPaymentLink, listPaymentLinks, summariesOfPaymentLinks } from './payment-link-repo.ts';
export type {
  CreatePaymentLinkInput,
  LinkAmount,
  PaymentLink,
  PaymentLinkStatus,
  PaymentLinkSummary,
} from './payment-link-types.ts';
export { EMPTY_SUMMARY, LINK_CHECKOUT_EXPIRES_IN, paymentLinkStatus } from './payment-link-types.ts';
export { paymentLinkUrl, paymentLinkView } from './payment-link-view.ts';
