import { randomChunk } from './random.ts';

/**
 * Prefixed, time-ordered identifiers: `pay_` + 26 Crockford base32 characters (48-bit millisecond
 * timestamp, 80 random bits, like a ULID). Time order keeps B-tree inserts local and makes ids
 * roughly sortable by creation; the random part makes them unguessable.
 */
export const ID_PREFIXES = {
  merchant: 'mer',
  apiKey: 'key',
  payment: 'pay',
  attempt: 'att',
  event: 'evt',
  refund: 'ref',
  webhookEndpoint: 'we',
  delivery: 'dlv',
  deliveryAttempt: 'dla',
  settlement: 'stl',
  settlementException: 'stx',
  reconciliation: 'rec',
  request: 'req',
  journalEntry: 'je',
  notification: 'ntf',
  checkout: 'cs',
  paymentLink: 'plink',
  auditEntry: 'aud',
  user: 'usr',
  invitation: 'inv',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  const chars: string[] = new Array<string>(26);
  // 48-bit millisecond time → 10 base32 characters, most significant first.
  let time = nowMs;
  for (let i = 9; i >= 0; i -= 1) {
    chars[i] = CROCKFORD[time % 32] as string;
    time = Math.floor(time / 32);
  }
  // 80 random bits → 16 base32 characters, as two 40-bit halves (exact in a double).
  const random = randomChunk(10);
  for (let half = 0; half < 2; half += 1) {
    let bits = 0;
    for (let j = 0; j < 5; j += 1) bits = bits * 256 + (random[half * 5 + j] as number);
    for (let i = 7; i >= 0; i -= 1) {
      chars[10 + half * 8 + i] = CROCKFORD[bits % 32] as string;
      bits = Math.floor(bits / 32);
    }
  }
  return `${ID_PREFIXES[kind]}_${chars.join('')}`;
}

/** True when `value` has the shape of an id of `kind`; used to answer 404 without a query. */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
