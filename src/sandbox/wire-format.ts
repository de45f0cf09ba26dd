import { type CurrencyCode, isCurrencyCode } from '../lib/currencies.ts';
import type { SandboxChargeState } from './sandbox-types.ts';

/** Helpers the provider dialects share to read request fields and name charge states on the wire. */

/** A non-negative integer amount sent as a decimal string of minor units. */
export function parseMinor(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{1,18}$/.test(value)) return undefined;
  return BigInt(value);
}

/**
 * The status words of a provider that takes the exact amount only: it has no word for a partial
 * payment because the charge book never produces one for it (acceptsPartialPayment: false).
 */
export function exactAmountStatusWords(
  words: Readonly<Record<Exclude<SandboxChargeState, 'partially_paid'>, string>>,
): (state: SandboxChargeState) => string {
  return (state) => {
    if (state === 'partially_paid') throw new Error('unreachable: this provider never takes a partial payment');
    return words[state];
  };
}

export function parseCurrency(value: unknown): CurrencyCode | undefined {
  return typeof value === 'string' && isCurrencyCode(value) ? value : undefined;
}

export function parseDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function parseMetadata(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}
