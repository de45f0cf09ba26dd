/**
 * Xendit's wire shapes, as its public API reference documents them (developers.xendit.co /
 * docs.xendit.co, read for this connector family: Fixed Virtual Accounts, E-Wallet Charges,
 * Retail Outlets / Fixed Payment Codes, Transactions, callbacks and errors). Only the fields the
 * connectors read or send are listed. Amounts are JSON numbers in whole units of the currency:
 * IDR has no minor unit at Xendit (our minor units are hundredths of a rupiah; transformers.ts
 * converts exactly).
 *
 * Authentication: HTTP Basic, the secret API key as the username and an empty password.
 * Callbacks: POSTed to the URL configured per product in Xendit's dashboard, with the account's
 * static verification token in the `x-callback-token` header (no signature over the body).
 */

/** Every error answer: `{error_code, message}` (and sometimes `errors` with field details). */
export interface XenditError {
  error_code: string;
  message: string;
  errors?: unknown[];
}

// ── Fixed (callback) virtual accounts ────────────────────────────────────────────────────────

export const XENDIT_VA_STATUSES = ['PENDING', 'ACTIVE', 'INACTIVE'] as const;
export type XenditVaStatus = (typeof XENDIT_VA_STATUSES)[number];

/** POST /callback_virtual_accounts (header X-IDEMPOTENCY-KEY). */
export interface XenditCreateVaBody {
  external_id: string;
  bank_code: string;
  name: string;
  /** Closed VAs accept exactly this amount. */
  expected_amount: number;
  is_closed: true;
  /** A single-use VA becomes INACTIVE after its payment. */
  is_single_use: true;
  expiration_date: string;
  currency: 'IDR';
}

/** A virtual account: the answer of create, GET /callback_virtual_accounts/{id} and PATCH. */
export interface XenditVirtualAccount {
  id: string;
  owner_id: string;
  external_id: string;
  bank_code: string;
  merchant_code: string;
  name: string;
  account_number: string;
  currency: string;
  is_closed: boolean;
  is_single_use: boolean;
  expected_amount?: number;
  expiration_date: string;
  status: XenditVaStatus;
}

/** The "FVA paid" callback (also GET /callback_virtual_account_payments/payment_id={id}). */
export interface XenditVaPaymentCallback {
  id: string;
  payment_id: string;
  callback_virtual_account_id: string;
  owner_id: string;
  external_id: string;
  account_number: string;
  bank_code: string;
  amount: number;
  merchant_code: string;
  currency?: string;
  transaction_timestamp: string;
  sender_name?: string;
  created?: string;
  updated?: string;
}

// ── Retail outlets: fixed payment codes ──────────────────────────────────────────────────────

export const XENDIT_FPC_STATUSES = ['ACTIVE', 'INACTIVE'] as const;
export type XenditFpcStatus = (typeof XENDIT_FPC_STATUSES)[number];

/** POST /fixed_payment_code (header X-IDEMPOTENCY-KEY). */
export interface XenditCreateFpcBody {
  external_id: string;
  retail_outlet_name: string;
  name: string;
  expected_amount: number;
  expiration_date: string;
  is_single_use: true;
}

export interface XenditFixedPaymentCode {
  id: string;
  owner_id: string;
  external_id: string;
  retail_outlet_name: string;
  prefix: string;
  name: string;
  payment_code: string;
  type: 'USER';
  expected_amount: number;
  is_single_use: boolean;
  expiration_date: string;
  status: XenditFpcStatus;
}

/** The "retail outlet paid" callback. `status`: COMPLETED, or SETTLING while funds settle. */
export interface XenditFpcPaymentCallback {
  id: string;
  external_id: string;
  prefix: string;
  payment_code: string;
  retail_outlet_name: string;
  name: string;
  amount: number;
  status: 'COMPLETED' | 'SETTLING';
  transaction_timestamp: string;
  payment_id: string;
  fixed_payment_code_payment_id: string;
  fixed_payment_code_id: string;
  owner_id: string;
}

// ── E-wallet charges ─────────────────────────────────────────────────────────────────────────

export const XENDIT_EWALLET_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'VOIDED', 'REFUNDED'] as const;
export type XenditEwalletStatus = (typeof XENDIT_EWALLET_STATUSES)[number];

/** POST /ewallets/charges (header X-IDEMPOTENCY-KEY); answered 202 while the payer is to act. */
export interface XenditCreateEwalletChargeBody {
  reference_id: string;
  currency: 'IDR';
  amount: number;
  checkout_method: 'ONE_TIME_PAYMENT';
  channel_code: string;
  channel_properties: { success_redirect_url: string; failure_redirect_url?: string };
  metadata: Record<string, string>;
}

export interface XenditEwalletCharge {
  id: string;
  business_id: string;
  reference_id: string;
  status: XenditEwalletStatus;
  currency: string;
  charge_amount: number;
  capture_amount: number | null;
  refunded_amount: number | null;
  checkout_method: string;
  channel_code: string;
  channel_properties: Record<string, string>;
  actions: {
    desktop_web_checkout_url: string | null;
    mobile_web_checkout_url: string | null;
    mobile_deeplink_checkout_url: string | null;
    qr_checkout_string: string | null;
  };
  is_redirect_required: boolean;
  callback_url: string;
  created: string;
  updated: string;
  voided_at: string | null;
  capture_now: boolean;
  failure_code: string | null;
  metadata: Record<string, string> | null;
}

/** E-wallet callbacks: `ewallet.capture` (the charge's outcome), `ewallet.void`, `ewallet.refund`. */
export interface XenditEwalletCallback {
  event: 'ewallet.capture' | 'ewallet.void' | 'ewallet.refund';
  business_id: string;
  created: string;
  data: XenditEwalletCharge;
}

/** POST /ewallets/charges/{id}/refunds (header X-IDEMPOTENCY-KEY). */
export interface XenditEwalletRefundBody {
  amount: number;
  reason: 'REQUESTED_BY_CUSTOMER' | 'OTHERS';
}

export interface XenditEwalletRefund {
  id: string;
  charge_id: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  currency: string;
  channel_code: string;
  capture_amount: number;
  refund_amount: number;
  reason: string;
  failure_code: string | null;
  created: string;
  updated: string;
}

// ── Transactions (the account's ledger of money in and out) ─────────────────────────────────

export const XENDIT_TRANSACTION_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'VOIDED', 'REVERSED'] as const;
export type XenditTransactionStatus = (typeof XENDIT_TRANSACTION_STATUSES)[number];

/** One row of GET /transactions. `product_id` is the id of the product object (VA, code, charge). */
export interface XenditTransaction {
  id: string;
  product_id: string;
  type: 'PAYMENT' | 'REFUND' | 'DISBURSEMENT' | 'TRANSFER';
  status: XenditTransactionStatus;
  channel_category: 'VIRTUAL_ACCOUNT' | 'EWALLET' | 'RETAIL_OUTLET';
  channel_code: string;
  reference_id: string;
  account_identifier: string | null;
  currency: string;
  amount: number;
  net_amount: number;
  cashflow: 'MONEY_IN' | 'MONEY_OUT';
  settlement_status: 'PENDING' | 'SETTLED' | null;
  estimated_settlement_time: string | null;
  business_id: string;
  created: string;
  updated: string;
  fee: {
    xendit_fee: number;
    value_added_tax: number;
    xendit_withholding_tax: number;
    third_party_withholding_tax: number;
    status: 'PENDING' | 'COMPLETED' | 'CANCELED' | 'REVERSED' | 'NOT_APPLICABLE';
  };
}

export interface XenditTransactionList {
  has_more: boolean;
  data: XenditTransaction[];
  links: { href: string; method: 'GET'; rel: 'next' }[];
}

export type XenditChannelCategory = XenditTransaction['channel_category'];
