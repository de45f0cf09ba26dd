import type { Logger } from '../../lib/logger.ts';
import type { ProviderHttpOptions } from './provider-http.ts';
import type { ParsedRefundNotification, RefundReport, RefundRequest, SettlementEntry, SimulatedOutcome } from './connector.ts';
import { date, isRecord, minor, ownerFromMetadata, str } from './http-connector.ts';

/**
 * Wire shapes the three sandbox providers have in common (they are one vendor's products): the
 * refund answer, the settlement report and the simulate control. Everything that differs between
 * them (fields, status words) stays in each connector's transformers.
 */
/** Settlement entries in the sandbox providers' report shape. */
export function sandboxSettlementEntries(body: unknown): SettlementEntry[] | undefined {
  if (!isRecord(body) || !Array.isArray(body['entries'])) return undefined;
  const out: SettlementEntry[] = [];
  for (const e of body['entries'] as unknown[]) {
    if (!isRecord(e)) return undefined;
    const gross = minor(e['gross_minor']);
    const fee = minor(e['fee_minor']);
    const net = minor(e['net_minor']);
    const settledAt = date(e['settled_at']);
    const ref = str(e['charge_id']);
    const attemptId = str(e['external_id']);
    const currency = str(e['currency']);
    if (gross === undefined || fee === undefined || net === undefined || settledAt === undefined) return undefined;
    if (ref === undefined || attemptId === undefined || currency === undefined) return undefined;
    out.push({
      providerReference: ref,
      attemptId,
      owner: ownerFromMetadata(e['metadata']) ?? null,
      currency,
      grossMinor: gross,
      feeMinor: fee,
      netMinor: net,
      settledAt,
    });
  }
  return out;
}

/** The sandbox providers' refund request. */
export function sandboxRefundBody(r: RefundRequest): unknown {
  return { charge_id: r.providerReference, amount_minor: r.amountMinor.toString(), reason: r.reason };
}

const REFUND_STATUS_MAP: Readonly<Record<string, RefundReport['status']>> = {
  PENDING: 'pending',
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
};

/** The sandbox providers' refund (an answer, or the `refund` of a notification). */
export function sandboxRefund(body: unknown): RefundReport | undefined {
  if (!isRecord(body)) return undefined;
  const id = str(body['id']);
  const refundId = str(body['external_id']);
  const status = REFUND_STATUS_MAP[str(body['status']) ?? ''];
  if (id === undefined || refundId === undefined || status === undefined) return undefined;
  const failureCode = str(body['failure_code'])?.toLowerCase() ?? (status === 'failed' ? 'refund_failed' : null);
  return { providerRefundId: id, refundId, status, failureCode };
}

/**
 * A sandbox provider's refund notification (`refund.status_changed`), or undefined when the body
 * is something else (a charge notification: the connector's own parser reads it).
 */
export function sandboxRefundNotification(rawBody: string): ParsedRefundNotification | undefined {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return undefined;
  }
  if (!isRecord(body) || body['event'] !== 'refund.status_changed') return undefined;
  const eventId = str(body['id']);
  const refund = sandboxRefund(body['refund']);
  if (eventId === undefined || refund === undefined) return { ok: false, reason: 'unreadable refund notification' };
  return { ok: true, eventId, refund };
}

/** The sandbox providers' simulate actions for our outcomes. */
export function sandboxSimulateBody(outcome: SimulatedOutcome, amountMinor: bigint | null): unknown {
  const action = { paid: 'pay', failed: 'fail', expired: 'expire', reversed: 'reverse', settled: 'settle' }[outcome];
  return amountMinor === null ? { action } : { action, amount_minor: amountMinor.toString() };
}

/** What a sandbox connector needs: where its provider is and the credentials they share. */
export interface SandboxConnectorOptions {
  /** The providers' base address (resolved per call; see provider-http.ts). */
  baseUrl: () => string;
  apiKey: string;
  /** Secrets notifications may be signed with (the current one, plus the previous during rotation). */
  webhookSecrets: readonly string[];
  log: Logger;
  http?: Pick<ProviderHttpOptions, 'maxRetries' | 'retryBackoffMs' | 'perTryTimeoutMs' | 'fetchImpl'>;
}
