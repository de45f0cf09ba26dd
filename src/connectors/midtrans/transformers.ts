import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type {
  ChargeOwner,
  ChargeRequest,
  ChargeSnapshot,
  Instructions,
  ParsedNotification,
  ProviderChargeStatus,
} from '../core/connector.ts';
import { isRecord, jsonObject, mapStatus, str } from '../core/http-connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { parseMajorAmount } from '../../lib/money.ts';
import { MIDTRANS_CODES, type MidtransChargeRequest, type MidtransTransaction, type MidtransTransactionStatus } from './wire.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Midtrans wire ↔ Tributary domain, for the two Midtrans connectors (midtrans_bank, midtrans_counter).
 * docs/connectors.md ("Midtrans") has the mapping tables and the reasons behind each choice.
 */

/**
 * The status map of both Midtrans connectors (bank transfer and cstore report the same words, read
 * the same way). Our vocabulary has no "refunded" charge state: a refund is its own object, so
 * `refund`/`partial_refund` (made from the Midtrans dashboard: these channels have no refund API)
 * leave the charge `paid`. `chargeback` (and a partial one) is money taken back by the payer's side:
 * `reversed`. `authorize`/`capture` are card words; they cannot occur on a VA or a cstore code, but
 * the map must be total over the words Midtrans documents.
 */
export const MIDTRANS_STATUS_MAP: Readonly<Record<MidtransTransactionStatus, ProviderChargeStatus>> = {
  pending: 'pending',
  authorize: 'pending',
  capture: 'paid',
  settlement: 'paid',
  deny: 'failed',
  cancel: 'canceled',
  expire: 'expired',
  failure: 'failed',
  refund: 'paid',
  partial_refund: 'paid',
  chargeback: 'reversed',
  partial_chargeback: 'reversed',
};

// ── sequence ─────────────────────────────────────────────────────────────────────────────────

/**
 * Midtrans has no per-transaction change counter, so one is derived from where a status sits in
 * Midtrans' documented status cycle (pending → settlement | expire | cancel | deny;
 * settlement → refund | partial_refund | chargeback | partial_chargeback): every documented
 * transition goes to a higher rank. A late payment after expiry (expire → settlement) also ranks
 * higher. Refunds can repeat, so each refund Midtrans lists adds one. Two reports of the same
 * rank (capture → settlement on cards) mean the same thing to us and the later one is dropped.
 */
const STATUS_RANK: Readonly<Record<MidtransTransactionStatus, number>> = {
  pending: 1,
  authorize: 1,
  deny: 2,
  cancel: 2,
  expire: 2,
  failure: 2,
  capture: 3,
  settlement: 3,
  refund: 4,
  partial_refund: 4,
  chargeback: 5,
  partial_chargeback: 5,
};

function sequenceOf(status: MidtransTransactionStatus, refunds: unknown): number {
  const refundCount = Array.isArray(refunds) ? Math.min(refunds.length, 1_000) : 0;
  const rank = STATUS_RANK[status];
  // Chargebacks outrank every refund count: leave room for up to 1,000 refunds below them.
  return rank === 5 ? 5 + 1_000 : rank + (rank === 4 ? refundCount : 0);
}

function wireStatus(value: unknown): MidtransTransactionStatus | undefined {
  return typeof value === 'string' && Object.hasOwn(STATUS_RANK, value) ? (value as MidtransTransactionStatus) : undefined;
}

// ── time and money ───────────────────────────────────────────────────────────────────────────

const JAKARTA_OFFSET_MS = 7 * 3_600_000;
const MIDTRANS_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** "YYYY-MM-DD HH:mm:ss" in Western Indonesian Time (GMT+7), Midtrans' clock. */
export function toMidtransTime(at: Date): string {
  return new Date(at.getTime() + JAKARTA_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ');
}

export function fromMidtransTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const m = MIDTRANS_TIME.exec(value);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s) - JAKARTA_OFFSET_MS;
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/**
 * Midtrans takes whole rupiah; our IDR amounts have two minor digits. An amount with sen cannot be
 * charged exactly, so it is refused before any call (undefined here).
 */
export function toWholeRupiah(amountMinor: bigint): bigint | undefined {
  return amountMinor > 0n && amountMinor % 100n === 0n ? amountMinor / 100n : undefined;
}

/** `gross_amount` ("145000.00") → minor units, exactly; undefined if it is not a decimal amount. */
export function grossToMinor(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{1,15}(?:\.\d{1,2})?$/.test(value)) return undefined;
  const parsed = parseMajorAmount(value, 'IDR' as CurrencyCode);
  return parsed.ok ? parsed.minor : undefined;
}

/**
 * The charge body as JSON text. `gross_amount` is an integer on the wire: it is written from the
 * bigint digits (never through a float) in place of a one-off placeholder that no user text can
 * produce (JSON escapes every quote inside a string).
 */
export function chargeBodyText(body: MidtransChargeRequest): string {
  const placeholder = randomUUID();
  const text = JSON.stringify({
    ...body,
    transaction_details: { order_id: body.transaction_details.order_id, gross_amount: placeholder },
  });
  const marker = `"gross_amount":"${placeholder}"`;
  const at = text.indexOf(marker);
  if (at < 0) throw new Error('charge body: gross_amount placeholder lost');
  return `${text.slice(0, at)}"gross_amount":${body.transaction_details.gross_amount.toString()}${text.slice(at + marker.length)}`;
}

// ── signature ────────────────────────────────────────────────────────────────────────────────

/** signature_key = SHA512(order_id + status_code + gross_amount + ServerKey), lowercase hex. */
export function midtransSignature(orderId: string, statusCode: string, grossAmount: string, serverKey: string): string {
  return createHash('sha512').update(`${orderId}${statusCode}${grossAmount}${serverKey}`, 'utf8').digest('hex');
}

/** Constant-time comparison of a received signature_key with the expected one. */
export function signatureMatches(received: string, expected: string): boolean {
  const a = Buffer.from(received.toLowerCase(), 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

// ── owner (custom fields) ────────────────────────────────────────────────────────────────────

/** Our owner metadata in Midtrans' three free custom fields, echoed in notifications and status. */
export function ownerFields(r: Pick<ChargeRequest, 'merchantId' | 'environment' | 'paymentId'>) {
  return { custom_field1: r.merchantId, custom_field2: r.environment, custom_field3: r.paymentId };
}

/** The owner from custom_field1..3, or null when Midtrans did not echo them (then the attempt id finds it). */
export function ownerFromFields(tx: Record<string, unknown>): ChargeOwner | null {
  const merchantId = str(tx['custom_field1']);
  const environment = tx['custom_field2'];
  const paymentId = str(tx['custom_field3']);
  if (merchantId === undefined || paymentId === undefined) return null;
  if (environment !== 'sandbox' && environment !== 'production') return null;
  return { merchantId, environment: environment as Environment, paymentId };
}

// ── charge body per channel ──────────────────────────────────────────────────────────────────

export const BANK_INSTRUMENTS = ['BCA', 'BNI', 'BRI', 'PERMATA', 'MANDIRI'] as const;
export const COUNTER_INSTRUMENTS = ['ALFAMART', 'INDOMARET'] as const;

/**
 * The expiry Midtrans should use: `custom_expiry` counts `expiry_duration` from `order_time`. The
 * order time is the call time (Midtrans' clock has whole seconds), so the charge expires at our
 * expiry, truncated to the second. A re-sent attempt differs only in order_time, and Midtrans
 * answers it 406 (duplicate order_id) whatever its body: the connector then reads the charge.
 */
function customExpiry(expiresAt: Date, now: Date): MidtransChargeRequest['custom_expiry'] {
  const orderSeconds = Math.floor(now.getTime() / 1_000);
  const expirySeconds = Math.floor(expiresAt.getTime() / 1_000);
  return {
    order_time: `${toMidtransTime(new Date(orderSeconds * 1_000))} +0700`,
    expiry_duration: Math.max(1, expirySeconds - orderSeconds),
    unit: 'second',
  };
}

function common(r: ChargeRequest, grossRupiah: bigint, now: Date) {
  return {
    transaction_details: { order_id: r.attemptId, gross_amount: grossRupiah },
    ...(r.email === null ? {} : { customer_details: { email: r.email } }),
    custom_expiry: customExpiry(r.expiresAt, now),
    ...ownerFields(r),
  };
}

/** The bank charge: `bank_transfer` for BCA/BNI/BRI/Permata VAs, `echannel` (Mandiri Bill) for Mandiri. */
export function bankChargeBody(r: ChargeRequest, grossRupiah: bigint, now: Date): MidtransChargeRequest | undefined {
  switch (r.instrument) {
    case 'BCA':
    case 'BNI':
    case 'BRI':
    case 'PERMATA':
      return {
        payment_type: 'bank_transfer',
        bank_transfer: { bank: r.instrument.toLowerCase() as 'bca' | 'bni' | 'bri' | 'permata' },
        ...common(r, grossRupiah, now),
      };
    case 'MANDIRI':
      // Mandiri allows 10 characters in bill_info1 and 30 in bill_info2 (it truncates the rest).
      return {
        payment_type: 'echannel',
        echannel: { bill_info1: 'Payment:', bill_info2: r.merchantName.slice(0, 30) },
        ...common(r, grossRupiah, now),
      };
    default:
      return undefined;
  }
}

export function counterChargeBody(r: ChargeRequest, grossRupiah: bigint, now: Date): MidtransChargeRequest | undefined {
  if (r.instrument !== 'ALFAMART' && r.instrument !== 'INDOMARET') return undefined;
  return {
    payment_type: 'cstore',
    cstore: { store: r.instrument === 'ALFAMART' ? 'alfamart' : 'indomaret', message: r.merchantName.slice(0, 20) },
    ...common(r, grossRupiah, now),
  };
}

// ── instructions per channel ─────────────────────────────────────────────────────────────────

const BANK_NAMES: Readonly<Record<string, string>> = {
  bca: 'Bank Central Asia',
  bni: 'Bank Negara Indonesia',
  bri: 'Bank Rakyat Indonesia',
  permata: 'Bank Permata',
};

/** VA instructions from a bank transfer / echannel transaction; undefined if its fields are missing. */
export function bankInstructions(tx: Record<string, unknown>, holderName: string): Instructions | undefined {
  const holder = holderName === '' ? 'Merchant' : holderName;
  if (tx['payment_type'] === 'echannel') {
    // Mandiri Bill Payment: the payer enters the biller (company) code, then the bill key. Our VA
    // instructions have one number, so the bill key is the number and the biller code is named in
    // the bank name the payer reads.
    const billKey = str(tx['bill_key']);
    const billerCode = str(tx['biller_code']);
    if (billKey === undefined || billerCode === undefined) return undefined;
    return {
      type: 'virtual_account',
      bank_code: 'MANDIRI',
      bank_name: `Mandiri Bill Payment (biller code ${billerCode})`,
      account_number: billKey,
      account_holder_name: holder,
    };
  }
  if (tx['payment_type'] !== 'bank_transfer') return undefined;
  const permata = str(tx['permata_va_number']);
  if (permata !== undefined) {
    return {
      type: 'virtual_account',
      bank_code: 'PERMATA',
      bank_name: BANK_NAMES['permata'] ?? 'Permata',
      account_number: permata,
      account_holder_name: holder,
    };
  }
  const va = Array.isArray(tx['va_numbers']) ? (tx['va_numbers'] as unknown[])[0] : undefined;
  if (!isRecord(va)) return undefined;
  const bank = str(va['bank']);
  const number = str(va['va_number']);
  if (bank === undefined || number === undefined || !Object.hasOwn(BANK_NAMES, bank)) return undefined;
  return {
    type: 'virtual_account',
    bank_code: bank.toUpperCase(),
    bank_name: BANK_NAMES[bank] ?? bank,
    account_number: number,
    account_holder_name: holder,
  };
}

const OUTLETS: Readonly<Record<string, { name: string; outlets: string[] }>> = {
  // "your customer can pay in all Alfamart group stores, including Alfamidi and DAN+DAN"
  alfamart: { name: 'Alfamart', outlets: ['Alfamart', 'Alfamidi', 'DAN+DAN'] },
  indomaret: { name: 'Indomaret', outlets: ['Indomaret'] },
};

export function counterInstructions(tx: Record<string, unknown>): Instructions | undefined {
  if (tx['payment_type'] !== 'cstore') return undefined;
  const store = str(tx['store']);
  const code = str(tx['payment_code']);
  const partner = store === undefined ? undefined : OUTLETS[store];
  if (store === undefined || code === undefined || partner === undefined) return undefined;
  return {
    type: 'counter',
    partner: store.toUpperCase(),
    partner_name: partner.name,
    payment_code: code,
    barcode_value: code,
    outlets: partner.outlets,
  };
}

// ── snapshots and notifications ──────────────────────────────────────────────────────────────

/** A readable transaction: the fields every answer about a charge must have. */
export function asTransaction(body: unknown): MidtransTransaction | undefined {
  if (!isRecord(body)) return undefined;
  const required = ['status_code', 'transaction_id', 'order_id', 'gross_amount', 'payment_type', 'transaction_status'];
  for (const key of required) if (str(body[key]) === undefined) return undefined;
  return body as unknown as MidtransTransaction;
}

/** The transaction in our vocabulary, through the connector's one status map; undefined if unreadable. */
export function toSnapshot(body: unknown): ChargeSnapshot | undefined {
  const tx = asTransaction(body);
  if (tx === undefined) return undefined;
  const record = body as Record<string, unknown>;
  const word = wireStatus(tx.transaction_status);
  const status = mapStatus(MIDTRANS_STATUS_MAP, tx.transaction_status);
  const amountMinor = grossToMinor(tx.gross_amount);
  const currency = tx.currency ?? 'IDR';
  if (word === undefined || status === undefined || amountMinor === undefined || currency !== 'IDR') return undefined;
  const moneyArrived = status === 'paid' || status === 'reversed';
  // settlement_time is when Midtrans confirmed the payment; a card capture has only transaction_time.
  const paidAt = moneyArrived ? (fromMidtransTime(tx.settlement_time) ?? fromMidtransTime(tx.transaction_time) ?? null) : null;
  return {
    providerReference: tx.transaction_id,
    attemptId: tx.order_id,
    owner: ownerFromFields(record),
    status,
    amountMinor,
    amountPaidMinor: moneyArrived ? amountMinor : 0n,
    currency,
    sequence: sequenceOf(word, record['refunds']),
    paidAt,
    failureCode: status === 'failed' ? word : null,
  };
}

/**
 * A notification. Midtrans has no event id; one event is one (transaction, status, status code)
 * triple — plus the refund count, as refunds repeat — so a notification Midtrans sends twice has
 * the same id and is stored once.
 */
export function parseMidtransNotification(rawBody: string): ParsedNotification {
  const body = jsonObject(rawBody);
  const snapshot = body === undefined ? undefined : toSnapshot(body);
  if (body === undefined || snapshot === undefined || str(body['signature_key']) === undefined) {
    return { ok: false, reason: 'not a Midtrans transaction notification' };
  }
  const refunds = Array.isArray(body['refunds']) ? body['refunds'].length : 0;
  const eventId = `${snapshot.providerReference}:${String(body['transaction_status'])}:${String(body['status_code'])}:${refunds}`;
  return { ok: true, eventId, snapshot };
}

/** Is this answer the transaction itself (any of its status codes), rather than an error? */
export function isTransactionAnswer(body: unknown): boolean {
  return asTransaction(body) !== undefined && wireStatus((body as Record<string, unknown>)['transaction_status']) !== undefined;
}

export { MIDTRANS_CODES };
