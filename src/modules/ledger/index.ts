/** The public entry of the ledger module: what other modules may use. */
export { paymentPendingMinor, postEntry } from './ledger.ts';
export {
  type RefundHoldSource,
  captureEntry,
  latePaymentEntry,
  refundHoldEntry,
  refundPostEntry,
  refundVoidEntry,
  reversalEntry,
  reversalOfHeldRefundEntry,
  settlementEntry,
} from './movements.ts';
