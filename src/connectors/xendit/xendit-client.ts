import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../lib/logger.ts';
import type {
  CallContext,
  ChargeOutcome,
  ChargeRequest,
  InboundNotification,
  Instructions,
  SettlementEntry,
  SettlementReportOutcome,
  VerifyResult,
} from '../core/connector.ts';
import { createProviderHttp, type ProviderHttp, type ProviderHttpOptions, type ProviderResponse } from '../core/provider-http.ts';
import { isRecord } from '../core/http-connector.ts';
import { type PaymentFacts, paymentFromTransactions, settlementEntries, toXenditAmount } from './transformers.ts';
import type { XenditChannelCategory } from './wire.ts';

/**
 * The one client the three Xendit connectors share: one API key, one HTTP client (Basic auth,
 * X-IDEMPOTENCY-KEY, the kit's deadlines and safe retries), one callback-token check, and the
 * Transactions API, which both shows a VA's or payment code's payment and is the settlement report.
 */
export interface XenditOptions {
  /** `https://api.xendit.co` in production; the loopback simulator in tests. */
  baseUrl: string | (() => string);
  /** The secret API key (`xnd_production_…`): the Basic-auth username. Never logged. */
  secretKey: string;
  /** The callback verification token(s) from the dashboard; several while rotating. */
  callbackTokens: readonly string[];
  /** Where an e-wallet sends the payer back: our hosted page of the payment. */
  payerReturnUrl: (paymentId: string) => string;
  log: Logger;
  http?: Pick<ProviderHttpOptions, 'maxRetries' | 'retryBackoffMs' | 'perTryTimeoutMs' | 'fetchImpl'>;
}

export const XENDIT_CALLBACK_TOKEN_HEADER = 'x-callback-token';

export interface XenditClient {
  http: ProviderHttp;
  options: XenditOptions;
  verifyCallback(notification: InboundNotification): VerifyResult;
  /** The payment behind a VA / payment code with this external id (null: none yet). */
  findPayment(
    category: XenditChannelCategory,
    externalId: string,
    signal: AbortSignal,
  ): Promise<{ kind: 'ok'; payment: PaymentFacts | null } | { kind: 'unknown'; code: string; message: string }>;
  settlementReport(
    category: XenditChannelCategory,
    window: { from: Date; to: Date },
    signal: AbortSignal,
  ): Promise<SettlementReportOutcome>;
}

/** Pages of the Transactions API read for one settlement report (50 rows each, Xendit's largest page), at most. */
const MAX_REPORT_PAGES = 50;

export function createXenditClient(options: XenditOptions): XenditClient {
  if (options.callbackTokens.length === 0) throw new Error('Xendit needs at least one callback token');
  const http = createProviderHttp({
    connector: 'xendit',
    baseUrl: typeof options.baseUrl === 'string' ? () => options.baseUrl as string : options.baseUrl,
    apiKey: options.secretKey,
    auth: 'basic',
    idempotencyHeader: 'x-idempotency-key',
    log: options.log,
    ...options.http,
  });
  // Compare digests: constant time whatever the lengths, and no early exit on the first token.
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  const tokenDigests = options.callbackTokens.map(digest);

  return {
    http,
    options,

    verifyCallback(notification) {
      const presented = notification.headers[XENDIT_CALLBACK_TOKEN_HEADER];
      if (presented === undefined || presented === '') return { ok: false, reason: 'missing_signature' };
      const candidate = digest(presented);
      let match = false;
      for (const known of tokenDigests) match = timingSafeEqual(candidate, known) || match;
      return match ? { ok: true } : { ok: false, reason: 'bad_signature' };
    },

    async findPayment(category, externalId, signal) {
      const query = new URLSearchParams({
        types: 'PAYMENT',
        channel_categories: category,
        reference_id: externalId,
        limit: '50',
      });
      const res = await http.send({ method: 'GET', path: `/transactions?${query.toString()}` }, signal);
      if (res.kind === 'unknown') return res;
      if (res.status !== 200) return { kind: 'unknown', ...xenditError(res, 'transactions') };
      const payment = paymentFromTransactions(res.body, externalId);
      if (payment === undefined) return { kind: 'unknown', code: 'bad_response', message: 'unreadable transactions answer' };
      return { kind: 'ok', payment };
    },

    async settlementReport(category, window, signal) {
      // Settlement moves a transaction's `updated`; Xendit filters by it, and the settlement time
      // decides the window. Pages follow `after_id`, bounded.
      const entries: SettlementEntry[] = [];
      let afterId: string | undefined;
      for (let page = 0; page < MAX_REPORT_PAGES; page += 1) {
        const query = new URLSearchParams({
          types: 'PAYMENT',
          statuses: 'SUCCESS',
          channel_categories: category,
          'updated[gte]': window.from.toISOString(),
          limit: '50',
        });
        if (afterId !== undefined) query.set('after_id', afterId);
        const res = await http.send({ method: 'GET', path: `/transactions?${query.toString()}` }, signal);
        if (res.kind === 'unknown') return res;
        if (res.status !== 200) return { kind: 'unknown', ...xenditError(res, 'transactions') };
        const parsed = settlementEntries(res.body, category, window);
        if (parsed === undefined) return { kind: 'unknown', code: 'bad_response', message: 'unreadable transactions answer' };
        entries.push(...parsed.entries);
        if (!parsed.hasMore || parsed.lastId === undefined) return { kind: 'report', entries };
        afterId = parsed.lastId;
      }
      return { kind: 'unknown', code: 'report_too_long', message: `more than ${MAX_REPORT_PAGES} pages of transactions` };
    },
  };
}

/** Xendit's `{error_code, message}` as our code (lower case) and a bounded message. */
export function xenditError(
  res: Extract<ProviderResponse, { kind: 'response' }>,
  what: string,
): { code: string; message: string } {
  const body = isRecord(res.body) ? res.body : {};
  const code = typeof body['error_code'] === 'string' ? body['error_code'].toLowerCase() : `http_${res.status}`;
  const message = typeof body['message'] === 'string' ? body['message'].slice(0, 300) : `${what} failed (${res.status})`;
  return { code, message };
}

/**
 * What a refused write means. Xendit answers 4xx when it did nothing (API_VALIDATION_ERROR,
 * INVALID_API_KEY, BANK_NOT_SUPPORTED_ERROR, …): refused, fail over. A 409 says something
 * already exists (a duplicate reference or idempotency key in use): it may be ours, so the answer
 * is unknown and the status sync finds out. 429 and 5xx never reach here (the HTTP kit makes them
 * unknown after its safe retries).
 */
export function refusedOrUnknown(
  res: Extract<ProviderResponse, { kind: 'response' }>,
  what: string,
): { kind: 'refused' | 'unknown'; code: string; message: string } {
  const error = xenditError(res, what);
  return { kind: res.status === 409 ? 'unknown' : 'refused', ...error };
}

/** What a create answer becomes when it is readable. */
export interface XenditIssued {
  providerReference: string;
  instructions: Instructions;
  expiresAt: Date;
}

/**
 * The create call every Xendit connector makes: the amount in whole rupiah, POSTed with the
 * attempt id as the idempotency key (a re-sent attempt gets the object Xendit already made), the
 * answer read by `issued`. `label` names the object in messages ("virtual account", …).
 */
export async function createXenditObject(
  client: XenditClient,
  request: ChargeRequest,
  ctx: CallContext,
  o: {
    path: string;
    label: string;
    body: (amount: number) => unknown;
    /** The HTTP statuses of a made object (an e-wallet charge also answers 202: it waits for the payer). */
    accepted: readonly number[];
    issued: (body: unknown) => XenditIssued | undefined;
  },
): Promise<ChargeOutcome> {
  const amount = toXenditAmount(request.amountMinor, request.currency);
  if (amount === undefined) {
    return { kind: 'refused', code: 'amount_not_whole_rupiah', message: 'Xendit takes whole rupiah amounts in IDR only' };
  }
  const res = await client.http.send(
    { method: 'POST', path: o.path, body: o.body(amount), idempotencyKey: request.attemptId },
    ctx.signal,
  );
  if (res.kind === 'unknown') return res;
  if (!o.accepted.includes(res.status)) return refusedOrUnknown(res, `${o.label} create`);
  const issued = o.issued(res.body);
  return issued === undefined
    ? { kind: 'unknown', code: 'bad_response', message: `unreadable ${o.label}` }
    : { kind: 'issued', ...issued };
}

/** GET one object (`path` names it): its body, `not_found` on 404, unknown on anything else. */
export async function readXenditObject(
  client: XenditClient,
  path: string,
  label: string,
  signal: AbortSignal,
): Promise<{ kind: 'ok'; body: unknown } | { kind: 'not_found' } | { kind: 'unknown'; code: string; message: string }> {
  const res = await client.http.send({ method: 'GET', path }, signal);
  if (res.kind === 'unknown') return res;
  if (res.status === 404) return { kind: 'not_found' };
  if (res.status !== 200) return { kind: 'unknown', ...xenditError(res, `${label} read`) };
  return { kind: 'ok', body: res.body };
}
