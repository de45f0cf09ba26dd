/** The public entry of the payments module: what other modules may use. */
export { applyProviderSnapshot, insertPaymentEvent, resolveSnapshotOwner } from './payment-lifecycle.ts';
export {
  committedRefundsMinor,
  findAttemptOwner,
  findAttemptState,
  findIssuedAttempt,
  findPayment,
  listAttempts,
  lockPayment,
} from './payment-repo.ts';
export { PAYMENT_STATUSES, type PaymentStatus } from './payment-states.ts';
export type { Attempt, AttemptState, Payment } from './payment-types.ts';
export { type CancelPaymentDeps, cancelPayment } from './cancel-payment.ts';
export { type CreatePaymentDeps, createPayment } from './create-payment.ts';
export { paymentView } from './payment-view.ts';
export { amountInput, currencyInput } from './money-input.ts';
export { findPaymentForPayer, type PayerPayment } from './payment-query-repo.ts';
export { isFinalForPayer, type PayerState, payerState } from './payer-status.ts';
