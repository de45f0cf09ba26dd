import type { CallContext, ChargeSnapshot, Connector, ConnectorCapabilities, QueryOutcome } from '../core/connector.ts';
import { fpcCreateBody, fpcIssued, fpcSnapshot, parseFpcCallback, toXenditAmount } from './transformers.ts';
import { type XenditClient, refusedOrUnknown, xenditError } from './xendit-client.ts';

const HOUR_MS = 3_600_000;

const OUTLETS: Readonly<Record<string, { name: string; outlets: string[] }>> = {
  ALFAMART: { name: 'Alfamart', outlets: ['Alfamart', 'Alfamidi', 'Lawson', 'DAN+DAN'] },
  INDOMARET: { name: 'Indomaret', outlets: ['Indomaret', 'Indogrosir', 'Superindo'] },
};

export const xenditCounterCapabilities: ConnectorCapabilities = {
  connector: 'xendit_counter',
  displayName: 'Xendit (retail outlets)',
  channel: 'counter',
  simulator: false,
  instruments: Object.entries(OUTLETS).map(([code, o]) => ({ code, name: o.name })),
  // Xendit: IDR 10,000 – 5,000,000 (Alfamart stops at 2,500,000: Xendit refuses above, we fail over).
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 500_000_000n } },
  instructionTtl: { defaultMs: 48 * HOUR_MS, minMs: HOUR_MS, maxMs: 7 * 24 * HOUR_MS },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
  notificationTrust: 'query',
};

/** Xendit Retail Outlets: one single-use fixed payment code per attempt (external_id = attempt id). */
export function createXenditCounterConnector(client: XenditClient): Connector {
  const { http } = client;
  const enc = encodeURIComponent;

  async function read(providerReference: string, closedByUs: boolean, ctx: CallContext): Promise<QueryOutcome> {
    const res = await http.send({ method: 'GET', path: `/fixed_payment_code/${enc(providerReference)}` }, ctx.signal);
    if (res.kind === 'unknown') return res;
    if (res.status === 404) return { kind: 'not_found' };
    if (res.status !== 200) return { kind: 'unknown', ...xenditError(res, 'payment code read') };
    const externalId = (res.body as { external_id?: unknown } | null)?.external_id;
    if (typeof externalId !== 'string') return { kind: 'unknown', code: 'bad_response', message: 'unreadable payment code' };
    const payment = await client.findPayment('RETAIL_OUTLET', externalId, ctx.signal);
    if (payment.kind === 'unknown') return payment;
    const snapshot = fpcSnapshot(res.body, payment.payment, closedByUs);
    return snapshot === undefined
      ? { kind: 'unknown', code: 'bad_response', message: 'unreadable payment code' }
      : { kind: 'found', snapshot };
  }

  const open = (s: ChargeSnapshot) => s.status === 'pending' && s.amountPaidMinor === 0n;

  return {
    capabilities: xenditCounterCapabilities,

    async createCharge(request, ctx) {
      const amount = toXenditAmount(request.amountMinor, request.currency);
      if (amount === undefined) {
        return { kind: 'refused', code: 'amount_not_whole_rupiah', message: 'Xendit takes whole rupiah amounts in IDR only' };
      }
      const res = await http.send(
        { method: 'POST', path: '/fixed_payment_code', body: fpcCreateBody(request, amount), idempotencyKey: request.attemptId },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200 && res.status !== 201) return refusedOrUnknown(res, 'payment code create');
      const issued = fpcIssued(res.body, OUTLETS);
      return issued === undefined
        ? { kind: 'unknown', code: 'bad_response', message: 'unreadable payment code' }
        : { kind: 'issued', ...issued };
    },

    queryCharge: (request, ctx) => read(request.providerReference, false, ctx),

    async cancelCharge(request, ctx) {
      const closedByUs = request.reason === 'canceled';
      const before = await read(request.providerReference, closedByUs, ctx);
      if (before.kind === 'not_found') return { kind: 'refused', code: 'not_found', message: 'no such payment code' };
      if (before.kind === 'unknown') return before;
      if (!open(before.snapshot)) {
        const closed = before.snapshot.status === 'canceled' || before.snapshot.status === 'expired';
        return closed ? { kind: 'closed', snapshot: before.snapshot } : { kind: 'not_cancelable', snapshot: before.snapshot };
      }
      // Xendit voids a payment code by moving its expiration date (PATCH /fixed_payment_code/{id}).
      const res = await http.send(
        {
          method: 'PATCH',
          path: `/fixed_payment_code/${enc(request.providerReference)}`,
          body: { expiration_date: ctx.now.toISOString() },
          idempotencyKey: `${request.attemptId}:close`,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200) return refusedOrUnknown(res, 'payment code close');
      const after = await read(request.providerReference, closedByUs, ctx);
      if (after.kind === 'not_found') return { kind: 'unknown', code: 'bad_response', message: 'the closed code vanished' };
      if (after.kind === 'unknown') return after;
      if (after.snapshot.status === 'canceled' || after.snapshot.status === 'expired')
        return { kind: 'closed', snapshot: after.snapshot };
      return { kind: 'not_cancelable', snapshot: after.snapshot };
    },

    async refund() {
      return {
        kind: 'refused',
        code: 'refund_not_supported',
        message: 'Xendit retail outlet payments cannot be refunded by API',
      };
    },

    verifyNotification: (notification) => client.verifyCallback(notification),
    parseNotification: parseFpcCallback,
    fetchSettlementReport: (request, ctx) => client.settlementReport('RETAIL_OUTLET', request, ctx.signal),
  };
}
