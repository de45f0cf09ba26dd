/** The public entry of the refunds module: what other modules may use. */
export { applyRefundOutcome } from './refund-outcome.ts';
export { findRefundOwner, listRefundsOfPayment } from './refund-repo.ts';
export type { Refund } from './refund-types.ts';
