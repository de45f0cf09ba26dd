import type { ConnectorCapabilities } from '../../connectors/core/connector.ts';
import type { Queryable, Store } from '../../db/store.ts';
import { CHANNELS, type Channel, type MerchantSettings, type RoutingPreferences } from '../../kernel/index.ts';
import { type ActingAs, recordAudit } from '../audit/index.ts';

/**
 * Per-merchant settings, stored in `merchants.settings` (jsonb) and read leniently: a missing or
 * invalid entry falls back to its default, so a bad setting can never break payment creation.
 * The create body's fields are fixed by the published interface, which is why these choices live
 * on the merchant. docs/payments.md and docs/routing.md describe them.
 *
 * ```json
 * {
 *   "late_payment_policy": "accept" | "refund",
 *   "instruction_ttl_seconds": { "bank": 86400, "ewallet": 900, "counter": 172800 },
 *   "routing": {
 *     "channel_order": ["ewallet", "bank", "counter"],
 *     "connector_order": ["sandbox_bank"],
 *     "excluded_connectors": [],
 *     "instruments": { "sandbox_bank": "BNI" }
 *   }
 * }
 * ```
 */
export const DEFAULT_MERCHANT_SETTINGS: MerchantSettings = { latePaymentPolicy: 'refund', instructionTtlMs: {}, routing: {} };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isChannel = (v: unknown): v is Channel => typeof v === 'string' && (CHANNELS as readonly string[]).includes(v);
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;

export function parseMerchantSettings(raw: unknown): MerchantSettings {
  if (!isRecord(raw)) return DEFAULT_MERCHANT_SETTINGS;
  const policy = raw['late_payment_policy'];
  const ttl: Partial<Record<Channel, number>> = {};
  const rawTtl = raw['instruction_ttl_seconds'];
  if (isRecord(rawTtl)) {
    for (const [channel, seconds] of Object.entries(rawTtl)) {
      if (isChannel(channel) && typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0) {
        ttl[channel] = seconds * 1000;
      }
    }
  }
  const routing: RoutingPreferences = {};
  const r = raw['routing'];
  if (isRecord(r)) {
    const channelOrder = strings(r['channel_order'])?.filter(isChannel);
    if (channelOrder !== undefined) routing.channelOrder = channelOrder;
    const connectorOrder = strings(r['connector_order']);
    if (connectorOrder !== undefined) routing.connectorOrder = connectorOrder;
    const excluded = strings(r['excluded_connectors']);
    if (excluded !== undefined) routing.excludedConnectors = excluded;
    if (isRecord(r['instruments'])) {
      const instruments: Record<string, string> = {};
      for (const [connector, code] of Object.entries(r['instruments']))
        if (typeof code === 'string') instruments[connector] = code;
      routing.instruments = instruments;
    }
  }
  return {
    latePaymentPolicy: policy === 'accept' || policy === 'refund' ? policy : DEFAULT_MERCHANT_SETTINGS.latePaymentPolicy,
    instructionTtlMs: ttl,
    routing,
  };
}

/**
 * How long instructions from this connector stay payable for this merchant: the merchant's
 * choice for the channel, clamped to [minMs, maxMs] of the connector, else the connector default.
 */
export function instructionTtlMs(settings: MerchantSettings, capabilities: ConnectorCapabilities): number {
  const { defaultMs, minMs, maxMs } = capabilities.instructionTtl;
  const wanted = settings.instructionTtlMs[capabilities.channel];
  if (wanted === undefined) return defaultMs;
  return Math.min(maxMs, Math.max(minMs, wanted));
}

export async function findMerchantSettings(q: Queryable, merchantId: string): Promise<MerchantSettings> {
  const rows = await q.query<{ settings: unknown }>('SELECT settings FROM merchants WHERE id = $1', [merchantId]);
  return parseMerchantSettings(rows[0]?.settings);
}

/** The stored settings document as it is (undefined: no such merchant). */
export async function readMerchantSettingsDocument(
  q: Queryable,
  merchantId: string,
): Promise<Record<string, unknown> | undefined> {
  const rows = await q.query<{ settings: Record<string, unknown> }>('SELECT settings FROM merchants WHERE id = $1', [merchantId]);
  return rows[0]?.settings;
}

/**
 * Replaces the merchant's settings document (the CLI's `merchants settings --set`), with its
 * audit row (merchant-wide: no environment) in the same transaction.
 */
export async function saveMerchantSettings(
  store: Store,
  merchantId: string,
  settings: Record<string, unknown>,
  by: ActingAs,
  now: Date,
): Promise<boolean> {
  return store.transaction(async (tx) => {
    const before = await tx.query<{ settings: Record<string, unknown> }>(
      'SELECT settings FROM merchants WHERE id = $1 FOR UPDATE',
      [merchantId],
    );
    if (before[0] === undefined) return false;
    await tx.query('UPDATE merchants SET settings = $2 WHERE id = $1', [merchantId, JSON.stringify(settings)]);
    const changes: Record<string, unknown> = {};
    for (const field of new Set([...Object.keys(before[0].settings), ...Object.keys(settings)])) {
      const from = before[0].settings[field] ?? null;
      const to = settings[field] ?? null;
      if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from, to };
    }
    await recordAudit(
      tx,
      { merchantId, environment: 'production', actor: by.actor, origin: by.origin },
      { action: 'merchant.settings_updated', environment: null, objectType: 'merchant', objectId: merchantId, changes, at: now },
    );
    return true;
  });
}
