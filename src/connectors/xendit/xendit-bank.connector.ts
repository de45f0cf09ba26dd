import type { CallContext, ChargeSnapshot, Connector, ConnectorCapabilities, QueryOutcome } from '../core/connector.ts';
import { vaCreateBody, vaIssued, vaSnapshot, parseVaCallback, toXenditAmount } from './transformers.ts';
import { type XenditClient, refusedOrUnknown, xenditError } from './xendit-client.ts';

const HOUR_MS = 3_600_000;

const BANKS: Readonly<Record<string, string>> = {
  BCA: 'Bank Central Asia',
  BNI: 'Bank Negara Indonesia',
  BRI: 'Bank Rakyat Indonesia',
  MANDIRI: 'Bank Mandiri',
  PERMATA: 'Bank Permata',
  BSI: 'Bank Syariah Indonesia',
  CIMB: 'CIMB Niaga',
};

export const xenditBankCapabilities: ConnectorCapabilities = {
  connector: 'xendit_bank',
  displayName: 'Xendit (fixed virtual accounts)',
  channel: 'bank',
  simulator: false,
  instruments: Object.entries(BANKS).map(([code, name]) => ({ code, name })),
  // Whole rupiah only (Xendit has no minor unit for IDR); closed single-use VAs.
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 5_000_000_000_000n } },
  instructionTtl: { defaultMs: 24 * HOUR_MS, minMs: 15 * 60_000, maxMs: 30 * 24 * HOUR_MS },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
  // A static callback token authenticates the sender only: the VA and its payment are read back.
  notificationTrust: 'query',
};

/** Xendit Fixed Virtual Accounts: one closed, single-use VA per attempt (external_id = attempt id). */
export function createXenditBankConnector(client: XenditClient): Connector {
  const { http } = client;
  const enc = encodeURIComponent;

  async function read(providerReference: string, closedByUs: boolean, ctx: CallContext): Promise<QueryOutcome> {
    const res = await http.send({ method: 'GET', path: `/callback_virtual_accounts/${enc(providerReference)}` }, ctx.signal);
    if (res.kind === 'unknown') return res;
    if (res.status === 404) return { kind: 'not_found' };
    if (res.status !== 200) return { kind: 'unknown', ...xenditError(res, 'virtual account read') };
    const externalId = (res.body as { external_id?: unknown } | null)?.external_id;
    if (typeof externalId !== 'string') return { kind: 'unknown', code: 'bad_response', message: 'unreadable virtual account' };
    const payment = await client.findPayment('VIRTUAL_ACCOUNT', externalId, ctx.signal);
    if (payment.kind === 'unknown') return payment;
    const snapshot = vaSnapshot(res.body, payment.payment, closedByUs);
    return snapshot === undefined
      ? { kind: 'unknown', code: 'bad_response', message: 'unreadable virtual account' }
      : { kind: 'found', snapshot };
  }

  const open = (s: ChargeSnapshot) => s.status === 'pending' && s.amountPaidMinor === 0n;

  return {
    capabilities: xenditBankCapabilities,

    async createCharge(request, ctx) {
      const amount = toXenditAmount(request.amountMinor, request.currency);
      if (amount === undefined) {
        return { kind: 'refused', code: 'amount_not_whole_rupiah', message: 'Xendit takes whole rupiah amounts in IDR only' };
      }
      const res = await http.send(
        {
          method: 'POST',
          path: '/callback_virtual_accounts',
          body: vaCreateBody(request, amount),
          idempotencyKey: request.attemptId,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200 && res.status !== 201) return refusedOrUnknown(res, 'virtual account create');
      const issued = vaIssued(res.body, BANKS);
      return issued === undefined
        ? { kind: 'unknown', code: 'bad_response', message: 'unreadable virtual account' }
        : { kind: 'issued', ...issued };
    },

    queryCharge: (request, ctx) => read(request.providerReference, false, ctx),

    async cancelCharge(request, ctx) {
      const closedByUs = request.reason === 'canceled';
      const before = await read(request.providerReference, closedByUs, ctx);
      if (before.kind === 'not_found') return { kind: 'refused', code: 'not_found', message: 'no such virtual account' };
      if (before.kind === 'unknown') return before;
      if (!open(before.snapshot)) {
        const closed = before.snapshot.status === 'canceled' || before.snapshot.status === 'expired';
        return closed ? { kind: 'closed', snapshot: before.snapshot } : { kind: 'not_cancelable', snapshot: before.snapshot };
      }
      // Xendit closes a VA by moving its expiration date; the key lets the kit retry the PATCH.
      const res = await http.send(
        {
          method: 'PATCH',
          path: `/callback_virtual_accounts/${enc(request.providerReference)}`,
          body: { expiration_date: ctx.now.toISOString() },
          idempotencyKey: `${request.attemptId}:close`,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200) return refusedOrUnknown(res, 'virtual account close');
      // Read back: a payment may have landed between the first read and the close.
      const after = await read(request.providerReference, closedByUs, ctx);
      if (after.kind === 'not_found') return { kind: 'unknown', code: 'bad_response', message: 'the closed account vanished' };
      if (after.kind === 'unknown') return after;
      if (after.snapshot.status === 'canceled' || after.snapshot.status === 'expired')
        return { kind: 'closed', snapshot: after.snapshot };
      return { kind: 'not_cancelable', snapshot: after.snapshot };
    },

    async refund() {
      // Xendit has no refund API for virtual-account payments (the money is returned by transfer).
      return {
        kind: 'refused',
        code: 'refund_not_supported',
        message: 'Xendit virtual account payments cannot be refunded by API',
      };
    },

    verifyNotification: (notification) => client.verifyCallback(notification),
    parseNotification: parseVaCallback,
    fetchSettlementReport: (request, ctx) => client.settlementReport('VIRTUAL_ACCOUNT', request, ctx.signal),
  };
}
