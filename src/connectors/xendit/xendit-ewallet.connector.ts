import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { isRecord, str } from '../core/http-connector.ts';
import { ewalletCreateBody, ewalletIssued, ewalletSnapshot, parseEwalletCallback, toXenditAmount } from './transformers.ts';
import { createXenditObject, readXenditObject, refusedOrUnknown, type XenditClient } from './xendit-client.ts';

const WALLETS: Readonly<Record<string, string>> = {
  DANA: 'DANA',
  SHOPEEPAY: 'ShopeePay',
  LINKAJA: 'LinkAja',
};

export const xenditEwalletCapabilities: ConnectorCapabilities = {
  connector: 'xendit_ewallet',
  displayName: 'Xendit (e-wallets)',
  channel: 'ewallet',
  simulator: false,
  instruments: Object.entries(WALLETS).map(([code, name]) => ({ code, name })),
  currencies: { IDR: { minMinor: 10_000n, maxMinor: 1_000_000_000n } },
  // Xendit takes no expiry for a charge; this is ours (the sweeper asks Xendit at the end).
  instructionTtl: { defaultMs: 30 * 60_000, minMs: 5 * 60_000, maxMs: 24 * 3_600_000 },
  // No cancel: Xendit cannot cancel a pending charge (void/refund act on paid ones).
  supports: { cancel: false, refund: true, partialRefund: true, settlement: true },
  notificationTrust: 'query',
};

/** Xendit E-Wallet Charges (ONE_TIME_PAYMENT, redirect flows): reference_id = attempt id. */
export function createXenditEwalletConnector(client: XenditClient): Connector {
  const { http } = client;
  const enc = encodeURIComponent;

  return {
    capabilities: xenditEwalletCapabilities,

    createCharge: (request, ctx) =>
      createXenditObject(client, request, ctx, {
        path: '/ewallets/charges',
        label: 'e-wallet charge',
        body: (amount) => ewalletCreateBody(request, amount, client.options.payerReturnUrl(request.paymentId)),
        // 202: the charge exists and waits for the payer.
        accepted: [200, 201, 202],
        issued: (body) => ewalletIssued(body, request, WALLETS),
      }),

    async queryCharge(request, ctx) {
      const res = await readXenditObject(
        client,
        `/ewallets/charges/${enc(request.providerReference)}`,
        'e-wallet charge',
        ctx.signal,
      );
      if (res.kind !== 'ok') return res;
      const snapshot = ewalletSnapshot(res.body);
      return snapshot === undefined
        ? { kind: 'unknown', code: 'bad_response', message: 'unreadable e-wallet charge' }
        : { kind: 'found', snapshot };
    },

    async cancelCharge() {
      return { kind: 'refused', code: 'cancel_not_supported', message: 'Xendit cannot cancel a pending e-wallet charge' };
    },

    async refund(request, ctx) {
      const amount = toXenditAmount(request.amountMinor, request.currency);
      if (amount === undefined) {
        return { kind: 'refused', code: 'amount_not_whole_rupiah', message: 'Xendit refunds whole rupiah amounts in IDR only' };
      }
      const res = await http.send(
        {
          method: 'POST',
          path: `/ewallets/charges/${enc(request.providerReference)}/refunds`,
          body: { amount, reason: 'REQUESTED_BY_CUSTOMER' },
          idempotencyKey: request.refundId,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200 && res.status !== 201 && res.status !== 202) return refusedOrUnknown(res, 'e-wallet refund');
      const body = isRecord(res.body) ? res.body : {};
      const id = str(body['id']);
      const status = body['status'];
      if (id === undefined || (status !== 'PENDING' && status !== 'SUCCEEDED' && status !== 'FAILED')) {
        return { kind: 'unknown', code: 'bad_response', message: 'unreadable e-wallet refund' };
      }
      if (status === 'FAILED') {
        const code = str(body['failure_code'])?.toLowerCase() ?? 'refund_failed';
        return { kind: 'refused', code, message: 'Xendit failed the refund' };
      }
      return { kind: status === 'SUCCEEDED' ? 'succeeded' : 'pending', providerRefundId: id };
    },

    verifyNotification: (notification) => client.verifyCallback(notification),
    parseNotification: parseEwalletCallback,
    fetchSettlementReport: (request, ctx) => client.settlementReport('EWALLET', request, ctx.signal),
  };
}
