import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: equal requests give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** The request fingerprint stored with an idempotency key. */
export function fingerprint(operation: string, normalizedRequest: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(normalizedRequest)).digest('hex');
}
