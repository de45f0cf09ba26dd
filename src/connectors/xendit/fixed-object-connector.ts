import type {
  CallContext,
  ChargeRequest,
  ChargeSnapshot,
  Connector,
  ConnectorCapabilities,
  ParsedNotification,
  QueryOutcome,
} from '../core/connector.ts';
import type { PaymentFacts } from './transformers.ts';
import type { XenditChannelCategory } from './wire.ts';
import { createXenditObject, readXenditObject, refusedOrUnknown, type XenditClient, type XenditIssued } from './xendit-client.ts';

/**
 * What sets one fixed-amount Xendit object apart from another: a fixed virtual account
 * (`xendit_bank`) and a fixed payment code (`xendit_counter`) are the same connector otherwise.
 */
export interface FixedObjectKind {
  capabilities: ConnectorCapabilities;
  /** The collection: POST creates; GET and PATCH `{path}/{id}` read and close. */
  path: string;
  /** The object's name in messages ("virtual account", "payment code"). */
  label: string;
  /** Xendit's channel category: finds the object's payment and its settlements in the Transactions API. */
  category: XenditChannelCategory;
  createBody(request: ChargeRequest, amount: number): unknown;
  issued(body: unknown): XenditIssued | undefined;
  /** The object and its payment (or none) as one snapshot; `closedByUs`: our close call's own answer. */
  snapshot(body: unknown, payment: PaymentFacts | null, closedByUs: boolean): ChargeSnapshot | undefined;
  parseCallback(rawBody: string): ParsedNotification;
  /** Why a payment of this kind cannot be refunded by API (Xendit returns the money by transfer). */
  refundRefusal: string;
}

/**
 * A connector over one closed, single-use, fixed-amount Xendit object per attempt (external_id =
 * attempt id). The object is only the payer's instruction; its payment is a transaction found by
 * the external id, and the object is closed by moving its expiration date.
 */
export function createFixedObjectConnector(client: XenditClient, kind: FixedObjectKind): Connector {
  const { label } = kind;
  const objectPath = (providerReference: string) => `${kind.path}/${encodeURIComponent(providerReference)}`;
  const unreadable = { kind: 'unknown', code: 'bad_response', message: `unreadable ${label}` } as const;

  async function read(providerReference: string, closedByUs: boolean, ctx: CallContext): Promise<QueryOutcome> {
    const res = await readXenditObject(client, objectPath(providerReference), label, ctx.signal);
    if (res.kind !== 'ok') return res;
    const externalId = (res.body as { external_id?: unknown } | null)?.external_id;
    if (typeof externalId !== 'string') return unreadable;
    const payment = await client.findPayment(kind.category, externalId, ctx.signal);
    if (payment.kind === 'unknown') return payment;
    const snapshot = kind.snapshot(res.body, payment.payment, closedByUs);
    return snapshot === undefined ? unreadable : { kind: 'found', snapshot };
  }

  const closed = (s: ChargeSnapshot) => s.status === 'canceled' || s.status === 'expired';

  return {
    capabilities: kind.capabilities,

    createCharge: (request, ctx) =>
      createXenditObject(client, request, ctx, {
        path: kind.path,
        label,
        body: (amount) => kind.createBody(request, amount),
        accepted: [200, 201],
        issued: kind.issued,
      }),

    queryCharge: (request, ctx) => read(request.providerReference, false, ctx),

    async cancelCharge(request, ctx) {
      const closedByUs = request.reason === 'canceled';
      const before = await read(request.providerReference, closedByUs, ctx);
      if (before.kind === 'not_found') return { kind: 'refused', code: 'not_found', message: `no such ${label}` };
      if (before.kind === 'unknown') return before;
      const open = before.snapshot.status === 'pending' && before.snapshot.amountPaidMinor === 0n;
      if (!open) {
        return closed(before.snapshot)
          ? { kind: 'closed', snapshot: before.snapshot }
          : { kind: 'not_cancelable', snapshot: before.snapshot };
      }
      // Xendit closes the object by moving its expiration date; the key lets the kit retry the PATCH.
      const res = await client.http.send(
        {
          method: 'PATCH',
          path: objectPath(request.providerReference),
          body: { expiration_date: ctx.now.toISOString() },
          idempotencyKey: `${request.attemptId}:close`,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return res;
      if (res.status !== 200) return refusedOrUnknown(res, `${label} close`);
      // Read back: a payment may have landed between the first read and the close.
      const after = await read(request.providerReference, closedByUs, ctx);
      if (after.kind === 'not_found') return { kind: 'unknown', code: 'bad_response', message: `the closed ${label} vanished` };
      if (after.kind === 'unknown') return after;
      return closed(after.snapshot)
        ? { kind: 'closed', snapshot: after.snapshot }
        : { kind: 'not_cancelable', snapshot: after.snapshot };
    },

    async refund() {
      return { kind: 'refused', code: 'refund_not_supported', message: kind.refundRefusal };
    },

    verifyNotification: (notification) => client.verifyCallback(notification),
    parseNotification: kind.parseCallback,
    fetchSettlementReport: (request, ctx) => client.settlementReport(kind.category, request, ctx.signal),
  };
}
