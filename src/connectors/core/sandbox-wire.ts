import type { Logger } from '../../lib/logger.ts';
import type { ProviderHttpOptions } from './provider-http.ts';
import type { RefundRequest, SettlementEntry, SimulatedOutcome } from './connector.ts';
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

/** The sandbox providers' refund answer. */
export function sandboxRefund(body: unknown): { providerRefundId: string; status: 'succeeded' | 'pending' } | undefined {
  if (!isRecord(body)) return undefined;
  const id = str(body['id']);
  if (id === undefined) return undefined;
  return { providerRefundId: id, status: body['status'] === 'SUCCEEDED' ? 'succeeded' : 'pending' };
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
