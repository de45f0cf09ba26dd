import { verifyTimestampedSignatureHeader } from '../../lib/hmac-signature.ts';
import type {
  ChargeOwner,
  ChargeRequest,
  ChargeSnapshot,
  Connector,
  ConnectorCapabilities,
  Instructions,
  ParsedNotification,
  ParsedRefundNotification,
  ProviderChargeStatus,
  RefundReport,
  RefundRequest,
  SettlementEntry,
  SimulatedOutcome,
} from './connector.ts';
import type { ProviderHttp, ProviderResponse } from './provider-http.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * The kit for connectors whose provider has a REST shape (create, read, close, refund, settlement
 * report, signed notifications). A connector built with it supplies only its capabilities, its
 * paths and its transformers (wire ↔ domain); the kit owns how HTTP answers become outcomes, so
 * that "what does a 503 on create mean" is decided once for every connector:
 *
 * | provider answer                  | create      | query      | close            |
 * | -------------------------------- | ----------- | ---------- | ---------------- |
 * | 2xx with a readable body         | issued      | found      | closed           |
 * | 2xx with an unreadable body      | unknown     | unknown    | unknown          |
 * | 404                              | refused     | not_found  | refused          |
 * | 409 carrying the charge          | refused     | unknown    | not_cancelable   |
 * | other 4xx                        | refused     | unknown    | refused          |
 * | timeout, network, 5xx, 429       | unknown     | unknown    | unknown          |
 *
 * A connector for a provider of another shape implements `Connector` directly.
 */
export interface Transformers {
  /** The create body in the provider's dialect; the attempt id is its idempotency key. */
  createBody(request: ChargeRequest): unknown;
  toIssued(body: unknown): { providerReference: string; instructions: Instructions; expiresAt: Date } | undefined;
  toSnapshot(body: unknown): ChargeSnapshot | undefined;
  parseNotification(rawBody: string): ParsedNotification;
  /** See Connector.parseRefundNotification (providers that notify refunds). */
  parseRefundNotification?(rawBody: string): ParsedRefundNotification | undefined;
  refundBody(request: RefundRequest): unknown;
  toRefund(body: unknown): Pick<RefundReport, 'providerRefundId' | 'status' | 'failureCode'> | undefined;
  toSettlementEntries(body: unknown): SettlementEntry[] | undefined;
  /** The provider's simulate action for one of our simulated outcomes (simulators only). */
  simulateBody?(outcome: SimulatedOutcome, amountMinor: bigint | null): unknown;
}

export interface HttpConnectorSpec {
  capabilities: ConnectorCapabilities;
  http: ProviderHttp;
  paths: { charges: string; closeVerb: string; refunds: string; settlements: string };
  transformers: Transformers;
  /** Header carrying `t=…,v1=…` and the secrets it may be signed with (several during rotation). */
  signature: { header: string; secrets: readonly string[]; toleranceS?: number };
}

const errorCodeOf = (body: unknown, fallback: string): string => {
  const code = (body as { error_code?: unknown } | null)?.error_code;
  return typeof code === 'string' ? code.toLowerCase() : fallback;
};
const messageOf = (body: unknown, fallback: string): string => {
  const message = (body as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message.slice(0, 300) : fallback;
};
const unreadable = (what: string) => ({ kind: 'unknown' as const, code: 'bad_response', message: `unreadable ${what} answer` });
const passUnknown = (res: Extract<ProviderResponse, { kind: 'unknown' }>) => ({
  kind: 'unknown' as const,
  code: res.code,
  message: res.message,
});
const enc = encodeURIComponent;

export function createHttpConnector(spec: HttpConnectorSpec): Connector {
  const { http, paths, transformers: t } = spec;
  const connector: Connector = {
    capabilities: spec.capabilities,

    async createCharge(request, ctx) {
      const res = await http.send(
        { method: 'POST', path: paths.charges, body: t.createBody(request), idempotencyKey: request.attemptId },
        ctx.signal,
      );
      if (res.kind === 'unknown') return passUnknown(res);
      if (res.status === 200 || res.status === 201) {
        const issued = t.toIssued(res.body);
        return issued === undefined ? unreadable('create') : { kind: 'issued', ...issued };
      }
      return {
        kind: 'refused',
        code: errorCodeOf(res.body, `http_${res.status}`),
        message: messageOf(res.body, 'refused'),
      };
    },

    async queryCharge(request, ctx) {
      const res = await http.send({ method: 'GET', path: `${paths.charges}/${enc(request.providerReference)}` }, ctx.signal);
      if (res.kind === 'unknown') return passUnknown(res);
      if (res.status === 404) return { kind: 'not_found' };
      if (res.status !== 200)
        return { kind: 'unknown', code: `http_${res.status}`, message: messageOf(res.body, 'query failed') };
      const snapshot = t.toSnapshot(res.body);
      return snapshot === undefined ? unreadable('query') : { kind: 'found', snapshot };
    },

    async cancelCharge(request, ctx) {
      const res = await http.send(
        {
          method: 'POST',
          path: `${paths.charges}/${enc(request.providerReference)}/${paths.closeVerb}`,
          // Closing is idempotent at the provider; the key makes the retry explicit.
          idempotencyKey: `${request.attemptId}:close`,
        },
        ctx.signal,
      );
      if (res.kind === 'unknown') return passUnknown(res);
      if (res.status === 200) {
        const snapshot = t.toSnapshot(res.body);
        return snapshot === undefined ? unreadable('close') : { kind: 'closed', snapshot };
      }
      if (res.status === 409) {
        const snapshot = t.toSnapshot((res.body as { charge?: unknown } | null)?.charge);
        if (snapshot !== undefined) return { kind: 'not_cancelable', snapshot };
      }
      return { kind: 'refused', code: errorCodeOf(res.body, `http_${res.status}`), message: messageOf(res.body, 'refused') };
    },

    async refund(request, ctx) {
      const res = await http.send(
        { method: 'POST', path: paths.refunds, body: t.refundBody(request), idempotencyKey: request.refundId },
        ctx.signal,
      );
      if (res.kind === 'unknown') return passUnknown(res);
      if (res.status === 200 || res.status === 201) {
        const refund = t.toRefund(res.body);
        if (refund === undefined) return unreadable('refund');
        if (refund.status === 'failed') {
          return { kind: 'refused', code: refund.failureCode ?? 'refund_failed', message: 'the provider failed the refund' };
        }
        return { kind: refund.status, providerRefundId: refund.providerRefundId };
      }
      return { kind: 'refused', code: errorCodeOf(res.body, `http_${res.status}`), message: messageOf(res.body, 'refused') };
    },

    verifyNotification(notification, now) {
      return verifyTimestampedSignatureHeader(
        spec.signature.secrets,
        notification.headers[spec.signature.header],
        notification.rawBody,
        now,
        spec.signature.toleranceS,
      );
    },

    parseNotification: (rawBody) => t.parseNotification(rawBody),
    ...(t.parseRefundNotification === undefined ? {} : { parseRefundNotification: t.parseRefundNotification }),

    async fetchSettlementReport(request, ctx) {
      const query = `from=${enc(request.from.toISOString())}&to=${enc(request.to.toISOString())}`;
      const res = await http.send({ method: 'GET', path: `${paths.settlements}?${query}` }, ctx.signal);
      if (res.kind === 'unknown') return passUnknown(res);
      if (res.status !== 200)
        return { kind: 'unknown', code: `http_${res.status}`, message: messageOf(res.body, 'report failed') };
      const entries = t.toSettlementEntries(res.body);
      return entries === undefined ? unreadable('settlement') : { kind: 'report', entries };
    },
  };
  const simulateBody = t.simulateBody;
  if (spec.capabilities.simulator && simulateBody !== undefined) {
    return {
      ...connector,
      sandbox: {
        async simulate(request, ctx) {
          const res = await http.send(
            {
              method: 'POST',
              path: `${paths.charges}/${enc(request.providerReference)}/simulate`,
              body: simulateBody(request.outcome, request.amountMinor),
            },
            ctx.signal,
          );
          if (res.kind === 'unknown') return passUnknown(res);
          if (res.status !== 200) {
            return {
              kind: 'refused',
              code: errorCodeOf(res.body, `http_${res.status}`),
              message: messageOf(res.body, 'refused'),
            };
          }
          const snapshot = t.toSnapshot(res.body);
          return snapshot === undefined ? unreadable('simulate') : { kind: 'accepted', snapshot };
        },
      },
    };
  }
  return connector;
}

// ── helpers for transformers ─────────────────────────────────────────────────────────────────

/** Our metadata on a charge, echoed back by the provider. */
export function ownerMetadata(request: Pick<ChargeRequest, 'merchantId' | 'environment' | 'paymentId'>): Record<string, string> {
  return {
    tributary_merchant_id: request.merchantId,
    tributary_environment: request.environment,
    tributary_payment_id: request.paymentId,
  };
}

export function ownerFromMetadata(metadata: unknown): ChargeOwner | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const m = metadata as Record<string, unknown>;
  const environment = m['tributary_environment'];
  if (typeof m['tributary_merchant_id'] !== 'string' || typeof m['tributary_payment_id'] !== 'string') return undefined;
  if (environment !== 'sandbox' && environment !== 'production') return undefined;
  return {
    merchantId: m['tributary_merchant_id'],
    environment: environment as Environment,
    paymentId: m['tributary_payment_id'],
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function date(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Integer minor units sent as a decimal string. */
export function minor(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^\d{1,18}$/.test(value) ? BigInt(value) : undefined;
}

export function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/** Parses a notification's JSON text; undefined when it is not a JSON object. */
export function jsonObject(rawBody: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(rawBody);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Our status for a wire status word, through the connector's one status map; undefined if unknown. */
export function mapStatus<W extends string>(
  map: Readonly<Record<W, ProviderChargeStatus>>,
  value: unknown,
): ProviderChargeStatus | undefined {
  return typeof value === 'string' && Object.hasOwn(map, value) ? map[value as W] : undefined;
}

/** The pieces of a provider's rendering of a charge, picked by the transformer, not yet checked. */
export interface SnapshotFields {
  id: unknown;
  externalId: unknown;
  metadata: unknown;
  status: ProviderChargeStatus | undefined;
  amountMinor: bigint | undefined;
  amountPaidMinor: bigint | undefined;
  currency: unknown;
  sequence: unknown;
  paidAt: unknown;
  failureCode: unknown;
}

/** A snapshot when every required piece is present and well-formed, else undefined (unreadable). */
export function snapshotFrom(f: SnapshotFields): ChargeSnapshot | undefined {
  const id = str(f.id);
  const attemptId = str(f.externalId);
  const owner = ownerFromMetadata(f.metadata);
  const currency = str(f.currency);
  const sequence = positiveInt(f.sequence);
  if (id === undefined || attemptId === undefined || owner === undefined || currency === undefined || sequence === undefined) {
    return undefined;
  }
  if (f.status === undefined || f.amountMinor === undefined || f.amountPaidMinor === undefined) return undefined;
  return {
    providerReference: id,
    attemptId,
    owner,
    status: f.status,
    amountMinor: f.amountMinor,
    amountPaidMinor: f.amountPaidMinor,
    currency,
    sequence,
    paidAt: date(f.paidAt) ?? null,
    failureCode: str(f.failureCode)?.toLowerCase() ?? null,
  };
}

/** A notification whose envelope has the event id under `eventIdKey` and the charge under `chargeKey`. */
export function parseEnvelope(
  rawBody: string,
  keys: { eventId: string; charge: string },
  toSnapshot: (charge: unknown) => ChargeSnapshot | undefined,
): ParsedNotification {
  const body = jsonObject(rawBody);
  const eventId = str(body?.[keys.eventId]);
  const snapshot = toSnapshot(body?.[keys.charge]);
  if (eventId === undefined || snapshot === undefined) return { ok: false, reason: `not a ${keys.charge} notification` };
  return { ok: true, eventId, snapshot };
}
