import type {
  ChargeRequest,
  ChargeSnapshot,
  Instructions,
  ParsedNotification,
  ProviderChargeStatus,
  SettlementEntry,
} from '../core/connector.ts';
import { date, isRecord, jsonObject, mapStatus, ownerFromMetadata, ownerMetadata, str } from '../core/http-connector.ts';
import { isCurrencyCode } from '../../lib/currencies.ts';
import { parseMajorAmount, toMajorNumber } from '../../lib/money.ts';
import {
  XENDIT_FPC_STATUSES,
  XENDIT_VA_STATUSES,
  type XenditCreateEwalletChargeBody,
  type XenditCreateFpcBody,
  type XenditCreateVaBody,
  type XenditEwalletStatus,
  type XenditFpcStatus,
  type XenditTransactionStatus,
  type XenditVaStatus,
} from './wire.ts';

/**
 * Xendit wire ↔ our domain, for the three connectors of the family. One exhaustive status map per
 * connector, typed over a "wire state": the provider's own status words, plus the few states the
 * connector derives from two documented objects because Xendit spreads one charge over them:
 *
 * - A virtual account (or a fixed payment code) is only the payer's instruction: PENDING/ACTIVE/
 *   INACTIVE. Its payment is another object, visible in the Transactions API (status PENDING,
 *   SUCCESS, FAILED, VOIDED, REVERSED). The wire state is `PAYMENT_<transaction status>` when the
 *   charge has a payment, else the VA's (code's) status.
 * - INACTIVE means "no longer payable": its expiration date passed, whether by time or because we
 *   closed it (Xendit closes by moving the expiration date). Only our own close call knows it
 *   closed it, so it alone reports `INACTIVE_CLOSED` (→ canceled); a later read says INACTIVE
 *   (→ expired), which the lifecycle then drops as not newer (same sequence).
 * - E-wallet charges: FAILED with failure_code USER_DID_NOT_AUTHORIZE_THE_PAYMENT is the payer
 *   letting the wallet's authorisation window pass: our `expired`.
 *
 * Sequence: Xendit has no per-charge change counter. The connectors derive one from the state's
 * rank in the only order a charge moves through (open → paid/failed/closed → reversed), so a
 * duplicate or an older report is never newer than what was applied. Notifications are only
 * triggers (`notificationTrust: 'query'`): the state applied is always the one read back.
 */

// ── amounts ──────────────────────────────────────────────────────────────────────────────────

const ONE_RUPIAH_MINOR = 100n; // IDR has two minor digits in ISO 4217 (and here); none at Xendit.

/** Our minor units as Xendit's whole rupiah, or undefined when not a whole rupiah amount. */
export function toXenditAmount(minor: bigint, currency: string): number | undefined {
  if (currency !== 'IDR' || !isCurrencyCode(currency) || minor <= 0n || minor % ONE_RUPIAH_MINOR !== 0n) return undefined;
  return toMajorNumber(minor, currency);
}

/**
 * A Xendit amount (a JSON number of whole units) as our minor units, exactly: only safe integers
 * are accepted (their decimal text is exact), and the text goes through the exact parser.
 */
export function fromXenditAmount(value: unknown, currency: string): bigint | undefined {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return undefined;
  if (!isCurrencyCode(currency)) return undefined;
  if (value === 0) return 0n;
  const parsed = parseMajorAmount(String(value), currency);
  return parsed.ok ? parsed.minor : undefined;
}

/** Letters and spaces only, as Xendit requires of VA and payment-code names (3–40 characters). */
export function xenditName(merchantName: string): string {
  const cleaned = merchantName
    .replace(/[^A-Za-z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 40)
    .trim();
  return cleaned.length >= 3 ? cleaned : 'Tributary Merchant';
}

// ── status maps (one per connector) ──────────────────────────────────────────────────────────

type PaymentState = `PAYMENT_${XenditTransactionStatus}`;

/** A payment code's states: its own status, our close, or its payment's. */
export type XenditCounterWireState = XenditFpcStatus | 'INACTIVE_CLOSED' | PaymentState;
/** A VA's states: a payment code's, and PENDING while the bank opens the account. */
export type XenditBankWireState = XenditVaStatus | XenditCounterWireState;
export type XenditEwalletWireState = XenditEwalletStatus | 'FAILED_NOT_AUTHORIZED';

export const XENDIT_COUNTER_STATUS_MAP: Readonly<Record<XenditCounterWireState, ProviderChargeStatus>> = {
  ACTIVE: 'pending',
  INACTIVE: 'expired',
  INACTIVE_CLOSED: 'canceled',
  PAYMENT_PENDING: 'pending',
  PAYMENT_SUCCESS: 'paid',
  PAYMENT_FAILED: 'failed',
  PAYMENT_VOIDED: 'reversed',
  PAYMENT_REVERSED: 'reversed',
};

/** A VA and a payment code read alike; a VA has one more state. */
export const XENDIT_BANK_STATUS_MAP: Readonly<Record<XenditBankWireState, ProviderChargeStatus>> = {
  PENDING: 'pending', // the bank is still opening the account
  ...XENDIT_COUNTER_STATUS_MAP,
};

/**
 * No `canceled`: Xendit cannot cancel a pending e-wallet charge (void and refund act on paid ones),
 * so `supports.cancel` is false. VOIDED is a same-day return of the whole paid amount to the payer.
 * REFUNDED stays `paid`: the charge was paid; the refund is its own object on our side.
 */
export const XENDIT_EWALLET_STATUS_MAP: Readonly<Record<XenditEwalletWireState, ProviderChargeStatus>> = {
  PENDING: 'pending',
  SUCCEEDED: 'paid',
  FAILED: 'failed',
  FAILED_NOT_AUTHORIZED: 'expired',
  VOIDED: 'reversed',
  REFUNDED: 'paid',
};

/** The derived change counter (see the file comment): a state's rank in a charge's progression. */
const RANK: Readonly<Record<string, number>> = {
  PENDING: 1,
  ACTIVE: 2,
  PAYMENT_PENDING: 3,
  INACTIVE: 3,
  INACTIVE_CLOSED: 3,
  PAYMENT_SUCCESS: 4,
  PAYMENT_FAILED: 4,
  PAYMENT_VOIDED: 5,
  PAYMENT_REVERSED: 5,
  SUCCEEDED: 4,
  FAILED: 4,
  FAILED_NOT_AUTHORIZED: 4,
  VOIDED: 5,
  REFUNDED: 5,
};

function rankOf(state: string): number {
  const rank = RANK[state];
  if (rank === undefined) throw new Error(`no rank for Xendit state ${state}`);
  return rank;
}

// ── the payment behind a VA or a payment code (Transactions API) ─────────────────────────────

export interface PaymentFacts {
  status: XenditTransactionStatus;
  amountMinor: bigint;
  paidAt: Date | null;
}

const TRANSACTION_STATUS_RANK: Readonly<Record<XenditTransactionStatus, number>> = {
  PENDING: 1,
  FAILED: 2,
  SUCCESS: 3,
  VOIDED: 4,
  REVERSED: 4,
};

/**
 * The payment of the charge whose external id is `referenceId`, from a Transactions answer (its
 * reference search is a partial match, so only exact matches count), or null when it has none; the
 * furthest-advanced one if there are several. Undefined when the answer is unreadable.
 */
export function paymentFromTransactions(body: unknown, referenceId: string): PaymentFacts | null | undefined {
  if (!isRecord(body) || !Array.isArray(body['data'])) return undefined;
  let best: PaymentFacts | null = null;
  for (const row of body['data'] as unknown[]) {
    if (!isRecord(row)) return undefined;
    if (row['reference_id'] !== referenceId || row['type'] !== 'PAYMENT') continue;
    const status = row['status'];
    if (typeof status !== 'string' || !Object.hasOwn(TRANSACTION_STATUS_RANK, status)) return undefined;
    const currency = str(row['currency']);
    const amountMinor = currency === undefined ? undefined : fromXenditAmount(row['amount'], currency);
    if (amountMinor === undefined) return undefined;
    const facts: PaymentFacts = {
      status: status as XenditTransactionStatus,
      amountMinor,
      paidAt: date(row['created']) ?? null,
    };
    if (best === null || TRANSACTION_STATUS_RANK[facts.status] > TRANSACTION_STATUS_RANK[best.status]) best = facts;
  }
  return best;
}

// ── virtual accounts (xendit_bank) ──────────────────────────────────────────────────────────

export function vaCreateBody(r: ChargeRequest, amount: number): XenditCreateVaBody {
  return {
    external_id: r.attemptId,
    bank_code: r.instrument,
    name: xenditName(r.merchantName),
    expected_amount: amount,
    is_closed: true,
    is_single_use: true,
    expiration_date: r.expiresAt.toISOString(),
    currency: 'IDR',
  };
}

export function vaIssued(
  body: unknown,
  bankNames: Readonly<Record<string, string>>,
): { providerReference: string; instructions: Instructions; expiresAt: Date } | undefined {
  if (!isRecord(body)) return undefined;
  const id = str(body['id']);
  const bank = str(body['bank_code']);
  const accountNumber = str(body['account_number']);
  const name = str(body['name']);
  const expiresAt = date(body['expiration_date']);
  if (id === undefined || bank === undefined || accountNumber === undefined || name === undefined || expiresAt === undefined) {
    return undefined;
  }
  return {
    providerReference: id,
    instructions: {
      type: 'virtual_account',
      bank_code: bank,
      bank_name: bankNames[bank] ?? bank,
      account_number: accountNumber,
      account_holder_name: name,
    },
    expiresAt,
  };
}

/** A VA and its payment (or none) as one snapshot. `closedByUs`: our close call's own answer. */
export function vaSnapshot(va: unknown, payment: PaymentFacts | null, closedByUs: boolean): ChargeSnapshot | undefined {
  return fixedObjectSnapshot(va, payment, closedByUs, {
    statuses: XENDIT_VA_STATUSES,
    statusMap: XENDIT_BANK_STATUS_MAP,
    currency: (object) => str(object['currency']) ?? 'IDR',
  });
}

/** The FVA-paid callback: a trigger; its fields stand in until the status query answers. */
export function parseVaCallback(rawBody: string): ParsedNotification {
  const body = jsonObject(rawBody);
  const paymentId = str(body?.['payment_id']);
  const currency = str(body?.['currency']) ?? 'IDR';
  const snapshot = paidObjectSnapshot({
    id: str(body?.['callback_virtual_account_id']),
    externalId: body?.['external_id'],
    currency,
    amountMinor: fromXenditAmount(body?.['amount'], currency),
    paidAt: body?.['transaction_timestamp'],
  });
  if (paymentId === undefined || snapshot === undefined) return { ok: false, reason: 'not a virtual account payment callback' };
  return { ok: true, eventId: `fva_payment:${paymentId}`, snapshot };
}

// ── fixed payment codes (xendit_counter) ────────────────────────────────────────────────────

export function fpcCreateBody(r: ChargeRequest, amount: number): XenditCreateFpcBody {
  return {
    external_id: r.attemptId,
    retail_outlet_name: r.instrument,
    name: xenditName(r.merchantName),
    expected_amount: amount,
    expiration_date: r.expiresAt.toISOString(),
    is_single_use: true,
  };
}

export function fpcIssued(
  body: unknown,
  outlets: Readonly<Record<string, { name: string; outlets: string[] }>>,
): { providerReference: string; instructions: Instructions; expiresAt: Date } | undefined {
  if (!isRecord(body)) return undefined;
  const id = str(body['id']);
  const outlet = str(body['retail_outlet_name']);
  const code = str(body['payment_code']);
  const expiresAt = date(body['expiration_date']);
  if (id === undefined || outlet === undefined || code === undefined || expiresAt === undefined) return undefined;
  const known = outlets[outlet];
  return {
    providerReference: id,
    instructions: {
      type: 'counter',
      partner: outlet,
      partner_name: known?.name ?? outlet,
      payment_code: code,
      barcode_value: code,
      outlets: known?.outlets ?? [outlet],
    },
    expiresAt,
  };
}

export function fpcSnapshot(code: unknown, payment: PaymentFacts | null, closedByUs: boolean): ChargeSnapshot | undefined {
  return fixedObjectSnapshot(code, payment, closedByUs, {
    statuses: XENDIT_FPC_STATUSES,
    statusMap: XENDIT_COUNTER_STATUS_MAP,
    currency: () => 'IDR', // fixed payment codes are rupiah only
  });
}

export function parseFpcCallback(rawBody: string): ParsedNotification {
  const body = jsonObject(rawBody);
  const paymentId = str(body?.['payment_id']) ?? str(body?.['fixed_payment_code_payment_id']);
  const wireStatus = body?.['status'];
  const snapshot =
    wireStatus !== 'COMPLETED' && wireStatus !== 'SETTLING'
      ? undefined
      : paidObjectSnapshot({
          id: body?.['fixed_payment_code_id'],
          externalId: body?.['external_id'],
          currency: 'IDR',
          amountMinor: fromXenditAmount(body?.['amount'], 'IDR'),
          paidAt: body?.['transaction_timestamp'],
        });
  if (paymentId === undefined || snapshot === undefined) return { ok: false, reason: 'not a retail outlet payment callback' };
  return { ok: true, eventId: `fpc_payment:${paymentId}`, snapshot };
}

// ── e-wallet charges (xendit_ewallet) ───────────────────────────────────────────────────────

/** Our instrument codes are the wallet names; Xendit's channel codes carry the country. */
export const ewalletChannelCode = (instrument: string): string => `ID_${instrument}`;

export function ewalletCreateBody(r: ChargeRequest, amount: number, returnUrl: string): XenditCreateEwalletChargeBody {
  return {
    reference_id: r.attemptId,
    currency: 'IDR',
    amount,
    checkout_method: 'ONE_TIME_PAYMENT',
    channel_code: ewalletChannelCode(r.instrument),
    channel_properties: { success_redirect_url: returnUrl, failure_redirect_url: returnUrl },
    metadata: ownerMetadata(r),
  };
}

/**
 * The payer's instructions from the charge's `actions`. Wallets give different subsets (a web
 * checkout, a deep link, a QR string); ours needs all three, so a missing one falls back to another
 * of the same charge: the QR then encodes the checkout URL, which a phone opens the same way.
 */
export function ewalletIssued(
  body: unknown,
  request: ChargeRequest,
  walletNames: Readonly<Record<string, string>>,
): { providerReference: string; instructions: Instructions; expiresAt: Date } | undefined {
  if (!isRecord(body) || !isRecord(body['actions'])) return undefined;
  const id = str(body['id']);
  const actions = body['actions'];
  const web = str(actions['desktop_web_checkout_url']) ?? str(actions['mobile_web_checkout_url']);
  const deep = str(actions['mobile_deeplink_checkout_url']);
  const qr = str(actions['qr_checkout_string']);
  const checkoutUrl = web ?? deep;
  if (id === undefined || checkoutUrl === undefined) return undefined;
  return {
    providerReference: id,
    instructions: {
      type: 'ewallet',
      provider: request.instrument,
      provider_name: walletNames[request.instrument] ?? request.instrument,
      checkout_url: checkoutUrl,
      deep_link: deep ?? str(actions['mobile_web_checkout_url']) ?? checkoutUrl,
      qr_string: qr ?? checkoutUrl,
    },
    // Xendit takes no expiry for a charge (each wallet has its own authorisation window): the
    // attempt's expiry is ours, enforced by our sweeper through a status query.
    expiresAt: request.expiresAt,
  };
}

export function ewalletSnapshot(charge: unknown): ChargeSnapshot | undefined {
  if (!isRecord(charge)) return undefined;
  const wire = charge['status'];
  const state: string | undefined =
    wire === 'FAILED' && charge['failure_code'] === 'USER_DID_NOT_AUTHORIZE_THE_PAYMENT'
      ? 'FAILED_NOT_AUTHORIZED'
      : typeof wire === 'string'
        ? wire
        : undefined;
  const status = mapStatus(XENDIT_EWALLET_STATUS_MAP, state);
  const currency = str(charge['currency']);
  if (status === undefined || state === undefined || currency === undefined) return undefined;
  const amountMinor = fromXenditAmount(charge['charge_amount'], currency);
  const captured = charge['capture_amount'] == null ? 0n : fromXenditAmount(charge['capture_amount'], currency);
  if (captured === undefined) return undefined;
  const paidStates = new Set(['SUCCEEDED', 'VOIDED', 'REFUNDED']);
  const snapshot = chargeSnapshot({
    id: charge['id'],
    externalId: charge['reference_id'],
    status,
    state,
    currency,
    amountMinor,
    payment: paidStates.has(state) ? { status: 'SUCCESS', amountMinor: captured, paidAt: date(charge['updated']) ?? null } : null,
  });
  if (snapshot === undefined) return undefined;
  return {
    ...snapshot,
    // The charge carries our metadata back (unlike VAs and payment codes).
    owner: ownerFromMetadata(charge['metadata']) ?? null,
    failureCode: str(charge['failure_code'])?.toLowerCase() ?? null,
  };
}

/** `ewallet.capture` / `ewallet.void` callbacks: the charge under `data`. */
export function parseEwalletCallback(rawBody: string): ParsedNotification {
  const body = jsonObject(rawBody);
  const event = str(body?.['event']);
  const data = body?.['data'];
  const snapshot = event?.startsWith('ewallet.') === true ? ewalletSnapshot(data) : undefined;
  const updated = isRecord(data) ? str(data['updated']) : undefined;
  if (event === undefined || snapshot === undefined || updated === undefined)
    return { ok: false, reason: 'not an e-wallet callback' };
  // Xendit sends no event id: the charge, its status and its update time name one change, so a
  // redelivered callback is recognised as the same event.
  return {
    ok: true,
    eventId: `${event}:${snapshot.providerReference}:${String(data && (data as { status?: unknown }).status)}:${updated}`,
    snapshot,
  };
}

// ── shared ──────────────────────────────────────────────────────────────────────────────────

/**
 * A VA or payment code and its payment (or none) as one snapshot: the wire state is the payment's
 * when there is one, else the object's own status (INACTIVE_CLOSED when our close call made it so).
 */
function fixedObjectSnapshot(
  object: unknown,
  payment: PaymentFacts | null,
  closedByUs: boolean,
  o: {
    statuses: readonly (XenditVaStatus | XenditFpcStatus)[];
    statusMap: Readonly<Record<XenditCounterWireState, ProviderChargeStatus>>;
    currency: (object: Record<string, unknown>) => string;
  },
): ChargeSnapshot | undefined {
  if (!isRecord(object)) return undefined;
  const objectStatus = o.statuses.find((s) => s === object['status']);
  if (objectStatus === undefined) return undefined;
  const state: XenditBankWireState =
    payment !== null
      ? (`PAYMENT_${payment.status}` satisfies PaymentState)
      : objectStatus === 'INACTIVE' && closedByUs
        ? 'INACTIVE_CLOSED'
        : objectStatus;
  const currency = o.currency(object);
  return chargeSnapshot({
    id: object['id'],
    externalId: object['external_id'],
    status: mapStatus(o.statusMap, state),
    state,
    currency,
    amountMinor: fromXenditAmount(object['expected_amount'], currency),
    payment,
  });
}

/** A payment callback's stand-in snapshot (until the status query answers): the object paid. */
function paidObjectSnapshot(f: {
  id: unknown;
  externalId: unknown;
  currency: string;
  amountMinor: bigint | undefined;
  paidAt: unknown;
}): ChargeSnapshot | undefined {
  if (f.amountMinor === undefined || f.amountMinor === 0n) return undefined;
  return chargeSnapshot({
    id: f.id,
    externalId: f.externalId,
    status: XENDIT_COUNTER_STATUS_MAP.PAYMENT_SUCCESS,
    state: 'PAYMENT_SUCCESS',
    currency: f.currency,
    amountMinor: f.amountMinor,
    payment: { status: 'SUCCESS', amountMinor: f.amountMinor, paidAt: date(f.paidAt) ?? null },
  });
}

function chargeSnapshot(f: {
  id: unknown;
  externalId: unknown;
  status: ProviderChargeStatus | undefined;
  state: string;
  currency: string;
  amountMinor: bigint | undefined;
  payment: PaymentFacts | null;
}): ChargeSnapshot | undefined {
  const id = str(f.id);
  const attemptId = str(f.externalId);
  if (id === undefined || attemptId === undefined || f.status === undefined || f.amountMinor === undefined) return undefined;
  const paid = f.payment !== null && f.payment.status !== 'FAILED' && f.payment.status !== 'PENDING';
  return {
    providerReference: id,
    attemptId,
    // VAs and payment codes do not echo metadata: the attempt id (their external_id) finds the payment.
    owner: null,
    status: f.status,
    amountMinor: f.amountMinor,
    amountPaidMinor: paid && f.payment !== null ? f.payment.amountMinor : 0n,
    currency: f.currency,
    sequence: rankOf(f.state),
    paidAt: paid && f.payment !== null ? f.payment.paidAt : null,
    failureCode: f.status === 'failed' ? 'payment_failed' : null,
  };
}

/**
 * Settled payments of one channel category from a Transactions page, for [from, to) by their
 * settlement time. Fee = amount − net_amount, exactly what Xendit kept (its fee, VAT and any
 * withholding, which its fee object itemises); a line with net above gross is unreadable.
 */
export function settlementEntries(
  body: unknown,
  category: string,
  window: { from: Date; to: Date },
): { entries: SettlementEntry[]; hasMore: boolean; lastId: string | undefined } | undefined {
  if (!isRecord(body) || !Array.isArray(body['data'])) return undefined;
  const entries: SettlementEntry[] = [];
  let lastId: string | undefined;
  for (const row of body['data'] as unknown[]) {
    if (!isRecord(row)) return undefined;
    lastId = str(row['id']);
    if (row['type'] !== 'PAYMENT' || row['channel_category'] !== category || row['status'] !== 'SUCCESS') continue;
    if (row['settlement_status'] !== 'SETTLED') continue;
    const settledAt = date(row['estimated_settlement_time']);
    if (settledAt === undefined) return undefined;
    if (settledAt < window.from || settledAt >= window.to) continue;
    const currency = str(row['currency']);
    const productId = str(row['product_id']);
    const referenceId = str(row['reference_id']);
    if (currency === undefined || productId === undefined || referenceId === undefined) return undefined;
    const gross = fromXenditAmount(row['amount'], currency);
    const net = fromXenditAmount(row['net_amount'], currency);
    if (gross === undefined || net === undefined || net > gross) return undefined;
    entries.push({
      providerReference: productId,
      attemptId: referenceId,
      owner: null, // transactions carry no metadata: the attempt id attributes the line
      currency,
      grossMinor: gross,
      feeMinor: gross - net,
      netMinor: net,
      settledAt,
    });
  }
  return { entries, hasMore: body['has_more'] === true, lastId };
}
