/**
 * Midtrans Core API wire shapes (docs.midtrans.com: "Integration: Bank Transfer", "Integration:
 * Over the Counter Payment", "Get Transaction Status", "Cancel"/"Expire transaction", "HTTP(S)
 * Notification / Webhooks", "Status Codes"). Only the fields Tributary sends or reads are typed;
 * Midtrans adds fields over time and asks integrators to ignore unknown ones, so every reader here
 * is lenient about extra fields and strict about the ones it needs.
 *
 *   POST /v2/charge                  create (Basic auth: server key as user, empty password)
 *   GET  /v2/{order_id}/status       the transaction (same shape as a notification)
 *   POST /v2/{order_id}/cancel       close a pending transaction on the merchant's request
 *   POST /v2/{order_id}/expire       close a pending transaction at its expiry
 *   notification: POST of the transaction JSON with `signature_key`
 *                 = SHA512(order_id + status_code + gross_amount + server key), hex
 */

/** `transaction_status` words (docs "Transaction Status Cycle"). */
export const MIDTRANS_TRANSACTION_STATUSES = [
  'pending',
  'authorize',
  'capture',
  'settlement',
  'deny',
  'cancel',
  'expire',
  'failure',
  'refund',
  'partial_refund',
  'chargeback',
  'partial_chargeback',
] as const;
export type MidtransTransactionStatus = (typeof MIDTRANS_TRANSACTION_STATUSES)[number];

/**
 * Every answer carries `status_code` as a string (docs "Status Codes"). Midtrans may answer an
 * error with HTTP 200 and the error in `status_code` (its official Node client checks both), so the
 * body's code is the one that counts. 407 is also the *success* answer of the expire endpoint and
 * the status of an expired transaction.
 */
export const MIDTRANS_CODES = {
  ok: '200',
  pending: '201',
  denied: '202',
  validation: '400',
  unauthorized: '401',
  paymentTypeNotAllowed: '402',
  notFound: '404',
  duplicateOrderId: '406',
  expired: '407',
  cannotModify: '412',
} as const;

export type MidtransPaymentType = 'bank_transfer' | 'echannel' | 'cstore';

export interface MidtransVaNumber {
  bank: string;
  va_number: string;
}

/** POST /v2/charge body (the parts Tributary sends). */
export interface MidtransChargeRequest {
  payment_type: MidtransPaymentType;
  transaction_details: { order_id: string; gross_amount: bigint };
  customer_details?: { email?: string; first_name?: string };
  bank_transfer?: { bank: 'bca' | 'bni' | 'bri' | 'permata' };
  echannel?: { bill_info1: string; bill_info2: string };
  cstore?: { store: 'alfamart' | 'indomaret'; message?: string };
  custom_expiry: { order_time: string; expiry_duration: number; unit: 'second' };
  custom_field1: string;
  custom_field2: string;
  custom_field3: string;
}

/** A transaction as the charge answer, the status API and notifications render it. */
export interface MidtransTransaction {
  status_code: string;
  status_message?: string;
  transaction_id: string;
  order_id: string;
  merchant_id?: string;
  /** Decimal string in rupiah, e.g. "145000.00". */
  gross_amount: string;
  currency?: string;
  payment_type: string;
  /** "YYYY-MM-DD HH:mm:ss", Western Indonesian Time (GMT+7). */
  transaction_time: string;
  transaction_status: string;
  fraud_status?: string;
  settlement_time?: string;
  expiry_time?: string;
  va_numbers?: MidtransVaNumber[];
  permata_va_number?: string;
  bill_key?: string;
  biller_code?: string;
  store?: string;
  payment_code?: string;
  custom_field1?: string;
  custom_field2?: string;
  custom_field3?: string;
  /** Notifications only. */
  signature_key?: string;
  /** Refunds made on the transaction (status API), each with its own key. */
  refunds?: { refund_key?: string; refund_amount?: string; created_at?: string }[];
}
