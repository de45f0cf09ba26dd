import type { Logger } from '../../lib/logger.ts';
import type {
  CallContext,
  CancelOutcome,
  ChargeOutcome,
  ChargeRequest,
  Connector,
  ConnectorCapabilities,
  Instructions,
  QueryOutcome,
} from '../core/connector.ts';
import { jsonObject, str } from '../core/http-connector.ts';
import type { ProviderHttpOptions } from '../core/provider-http.ts';
import { createMidtransClient, type MidtransAnswer, type MidtransClient } from './midtrans-client.ts';
import {
  asTransaction,
  bankChargeBody,
  bankInstructions,
  chargeBodyText,
  counterChargeBody,
  counterInstructions,
  fromMidtransTime,
  grossToMinor,
  isTransactionAnswer,
  MIDTRANS_CODES,
  midtransSignature,
  parseMidtransNotification,
  signatureMatches,
  toSnapshot,
  toWholeRupiah,
} from './transformers.ts';
import type { MidtransChargeRequest } from './wire.ts';

/**
 * The Midtrans family: one connector per Tributary channel, sharing one Core API client.
 * `midtrans_bank` charges bank transfer VAs (BCA, BNI, BRI, Permata) and Mandiri Bill (echannel);
 * `midtrans_counter` charges Alfamart / Indomaret payment codes (cstore). docs/connectors.md
 * ("Midtrans") says how they were written and what each decision rests on.
 *
 * Not built on http-connector.ts: Midtrans answers in the body's `status_code`, a re-sent order is
 * 406 (not the existing charge), closing twice is 412, and 407 means "expired" both as a success of
 * the expire endpoint and as a status. The outcome rules are the kit's all the same: refused only
 * when Midtrans definitely did nothing; unknown for timeouts, 5xx and unreadable answers.
 */
const DAY_MS = 24 * 3_600_000;

/** What both Midtrans connectors declare alike. */
const MIDTRANS_ALIKE = {
  simulator: false,
  // Bank transfers and cstore have no refund API at Midtrans; there is no settlement report API at all.
  supports: { cancel: true, refund: false, partialRefund: false, settlement: false },
  // signature_key covers order_id, status_code and gross_amount only, with no timestamp.
  notificationTrust: 'query',
} as const satisfies Partial<ConnectorCapabilities>;

export const midtransBankCapabilities: ConnectorCapabilities = {
  connector: 'midtrans_bank',
  displayName: 'Midtrans (bank transfer)',
  channel: 'bank',
  ...MIDTRANS_ALIKE,
  instruments: [
    { code: 'BCA', name: 'BCA Virtual Account' },
    { code: 'BNI', name: 'BNI Virtual Account' },
    { code: 'BRI', name: 'BRI Virtual Account' },
    { code: 'PERMATA', name: 'Permata Virtual Account' },
    { code: 'MANDIRI', name: 'Mandiri Bill Payment' },
  ],
  // Midtrans' acquirer limits: BCA's minimum (IDR 10,000) and Permata's maximum (IDR 9,999,999,999)
  // bound what every bank accepts.
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 999_999_999_900n } },
  // Midtrans: default 24 h, custom_expiry from 20 s to 180 days.
  instructionTtl: { defaultMs: DAY_MS, minMs: 15 * 60_000, maxMs: 180 * DAY_MS },
};

export const midtransCounterCapabilities: ConnectorCapabilities = {
  connector: 'midtrans_counter',
  displayName: 'Midtrans (Alfamart, Indomaret)',
  channel: 'counter',
  ...MIDTRANS_ALIKE,
  instruments: [
    { code: 'ALFAMART', name: 'Alfamart' },
    { code: 'INDOMARET', name: 'Indomaret' },
  ],
  // Indomaret's minimum (IDR 10,000) and Alfamart's cash maximum (IDR 2,500,000).
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 250_000_000n } },
  instructionTtl: { defaultMs: DAY_MS, minMs: 60 * 60_000, maxMs: 180 * DAY_MS },
};

export interface MidtransOptions {
  /** https://api.midtrans.com, or https://api.sandbox.midtrans.com (MIDTRANS_BASE_URL). */
  baseUrl: string | (() => string);
  /** The merchant's server key (MIDTRANS_SERVER_KEY): Basic auth and the notification signature. */
  serverKey: string;
  log: Logger;
  /**
   * Where Midtrans should notify each connector (`…/provider/{connector}/callback`), sent per charge
   * as `X-Override-Notification`. Undefined: the dashboard's Payment Notification URL is used.
   */
  notificationUrl?: (connector: string) => string | undefined;
  http?: Pick<ProviderHttpOptions, 'maxRetries' | 'retryBackoffMs' | 'perTryTimeoutMs' | 'fetchImpl'>;
}

interface Flavour {
  capabilities: ConnectorCapabilities;
  body(request: ChargeRequest, grossRupiah: bigint, now: Date): MidtransChargeRequest | undefined;
  instructions(tx: Record<string, unknown>, request: ChargeRequest): Instructions | undefined;
}

/** Both Midtrans connectors, sharing one client. */
export function createMidtransConnectors(options: MidtransOptions): Connector[] {
  const baseUrl = typeof options.baseUrl === 'string' ? () => options.baseUrl as string : options.baseUrl;
  const client = createMidtransClient({
    baseUrl: () => baseUrl().replace(/\/+$/, ''),
    serverKey: options.serverKey,
    log: options.log,
    ...(options.http === undefined ? {} : { http: options.http }),
  });
  return [
    midtransConnector(client, options, {
      capabilities: midtransBankCapabilities,
      body: bankChargeBody,
      instructions: (tx, r) => bankInstructions(tx, r.merchantName),
    }),
    midtransConnector(client, options, {
      capabilities: midtransCounterCapabilities,
      body: counterChargeBody,
      instructions: (tx) => counterInstructions(tx),
    }),
  ];
}

const refused = (code: string, message: string) => ({ kind: 'refused' as const, code, message });
const unknownOf = (a: Extract<MidtransAnswer, { kind: 'unknown' }>) => ({
  kind: 'unknown' as const,
  code: a.code,
  message: a.message,
});
const unreadable = (what: string) => ({ kind: 'unknown' as const, code: 'bad_response', message: `unreadable ${what} answer` });
const messageOf = (body: Record<string, unknown>) => str(body['status_message'])?.slice(0, 300) ?? 'refused by Midtrans';

function midtransConnector(client: MidtransClient, options: MidtransOptions, flavour: Flavour): Connector {
  const { capabilities } = flavour;
  const name = capabilities.connector;

  /** The answer about a charge we made (a fresh one, or the one a 406 points at) as an outcome. */
  function issuedFrom(body: Record<string, unknown>, request: ChargeRequest, grossRupiah: bigint): ChargeOutcome | undefined {
    const tx = asTransaction(body);
    const snapshot = toSnapshot(body);
    const instructions = flavour.instructions(body, request);
    if (tx === undefined || snapshot === undefined || instructions === undefined) return undefined;
    // The charge Midtrans holds under our order_id must be the one we asked for.
    if (tx.order_id !== request.attemptId || grossToMinor(tx.gross_amount) !== grossRupiah * 100n) {
      return { kind: 'unknown', code: 'order_id_conflict', message: 'Midtrans holds another charge under this order_id' };
    }
    if (snapshot.status === 'failed') return refused(`midtrans_${tx.transaction_status}`, messageOf(body));
    // expiry_time when Midtrans gives it (truncated to its whole seconds), else the expiry we set.
    const asked = new Date(Math.floor(request.expiresAt.getTime() / 1_000) * 1_000);
    const expiresAt = fromMidtransTime(tx.expiry_time) ?? asked;
    return { kind: 'issued', providerReference: tx.transaction_id, instructions, expiresAt };
  }

  async function readClosed(id: string, ctx: CallContext): Promise<CancelOutcome> {
    const q = await query(id, ctx);
    if (q.kind === 'unknown') return q;
    if (q.kind === 'not_found') return refused('midtrans_404', 'Midtrans does not know the transaction');
    const s = q.snapshot.status;
    if (s === 'canceled' || s === 'expired') return { kind: 'closed', snapshot: q.snapshot };
    if (s === 'paid' || s === 'reversed' || s === 'failed') return { kind: 'not_cancelable', snapshot: q.snapshot };
    return refused('midtrans_412', 'Midtrans would not close the transaction');
  }

  async function query(id: string, ctx: CallContext): Promise<QueryOutcome> {
    const a = await client.status(id, ctx.signal);
    if (a.kind === 'unknown') return unknownOf(a);
    // 200/201/202/407: the transaction, whatever its state (407 is an expired one).
    if (isTransactionAnswer(a.body)) {
      const snapshot = toSnapshot(a.body);
      return snapshot === undefined ? unreadable('status') : { kind: 'found', snapshot };
    }
    if (a.code === MIDTRANS_CODES.notFound) return { kind: 'not_found' };
    return { kind: 'unknown', code: `midtrans_${a.code}`, message: messageOf(a.body) };
  }

  return {
    capabilities,

    async createCharge(request, ctx) {
      if (request.currency !== 'IDR') return refused('unsupported_currency', 'Midtrans charges IDR only');
      const grossRupiah = toWholeRupiah(request.amountMinor);
      if (grossRupiah === undefined) return refused('amount_not_whole_rupiah', 'Midtrans charges whole rupiah only');
      const body = flavour.body(request, grossRupiah, ctx.now);
      if (body === undefined) return refused('unsupported_instrument', `${name} does not offer ${request.instrument}`);
      const a = await client.charge(chargeBodyText(body), { notificationUrl: options.notificationUrl?.(name) }, ctx.signal);
      if (a.kind === 'unknown') return unknownOf(a);
      if (a.code === MIDTRANS_CODES.pending || a.code === MIDTRANS_CODES.ok || isTransactionAnswer(a.body)) {
        return issuedFrom(a.body, request, grossRupiah) ?? unreadable('charge');
      }
      if (a.code === MIDTRANS_CODES.duplicateOrderId) {
        // Our attempt id is the order_id: a 406 means an earlier send of this attempt made the
        // charge and its answer was lost. Read it and answer as the first send would have.
        const existing = await client.status(request.attemptId, ctx.signal);
        if (existing.kind === 'unknown') return unknownOf(existing);
        if (!isTransactionAnswer(existing.body)) {
          return {
            kind: 'unknown',
            code: `midtrans_${existing.code}`,
            message: 'duplicate order_id, but its status is unreadable',
          };
        }
        return issuedFrom(existing.body, request, grossRupiah) ?? unreadable('status');
      }
      // 400 validation, 401 server key, 402 payment type not enabled, 407, 411, 412, 413, …: Midtrans
      // made nothing.
      return refused(`midtrans_${a.code}`, messageOf(a.body));
    },

    async cancelCharge(request, ctx) {
      const a =
        request.reason === 'expired'
          ? await client.expire(request.providerReference, ctx.signal)
          : await client.cancel(request.providerReference, ctx.signal);
      if (a.kind === 'unknown') return unknownOf(a);
      if (isTransactionAnswer(a.body)) {
        const snapshot = toSnapshot(a.body);
        if (snapshot === undefined) return unreadable('close');
        if (snapshot.status === 'canceled' || snapshot.status === 'expired') return { kind: 'closed', snapshot };
        return { kind: 'not_cancelable', snapshot };
      }
      // 412: Midtrans cannot change this transaction any more — already closed, or paid. Ask it which.
      if (a.code === MIDTRANS_CODES.cannotModify) return readClosed(request.providerReference, ctx);
      return refused(`midtrans_${a.code}`, messageOf(a.body));
    },

    queryCharge: (request, ctx) => query(request.providerReference, ctx),

    async refund() {
      // Midtrans' refund API serves cards and e-wallets; bank transfers and cstore are refunded
      // outside it (the payer's bank details are needed), so nothing is sent.
      return refused('refund_not_supported', `${name} cannot refund through Midtrans' API`);
    },

    verifyNotification(notification) {
      const body = jsonObject(notification.rawBody);
      const received = body === undefined ? undefined : str(body['signature_key']);
      if (body === undefined || received === undefined) return { ok: false, reason: 'missing_signature' };
      const orderId = str(body['order_id']);
      const statusCode = str(body['status_code']);
      const gross = str(body['gross_amount']);
      if (orderId === undefined || statusCode === undefined || gross === undefined) return { ok: false, reason: 'bad_signature' };
      const expected = midtransSignature(orderId, statusCode, gross, options.serverKey);
      return signatureMatches(received, expected) ? { ok: true } : { ok: false, reason: 'bad_signature' };
    },

    parseNotification: parseMidtransNotification,

    async fetchSettlementReport() {
      // Midtrans publishes no settlement (payout) report API: withdrawals and their transaction
      // lists are exported from the dashboard. Declared with supports.settlement = false.
      return { kind: 'unknown', code: 'not_supported', message: 'Midtrans has no settlement report API' };
    },
  };
}
