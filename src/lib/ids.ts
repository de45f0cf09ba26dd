import { randomBytes } from 'node:crypto';

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
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  const random = randomBytes(10);
  let out = '';
  let time = nowMs;
  const timeChars: string[] = [];
  for (let i = 0; i < 10; i += 1) {
    timeChars.push(CROCKFORD[time % 32] as string);
    time = Math.floor(time / 32);
  }
  out += timeChars.reverse().join('');
  // 80 random bits → 16 base32 characters.
  let acc = 0n;
  for (const byte of random) acc = (acc << 8n) | BigInt(byte);
  const randChars: string[] = [];
  for (let i = 0; i < 16; i += 1) {
    randChars.push(CROCKFORD[Number(acc & 31n)] as string);
    acc >>= 5n;
  }
  out += randChars.reverse().join('');
  return `${ID_PREFIXES[kind]}_${out}`;
}

/** True when `value` has the shape of an id of `kind`; used to answer 404 without a query. */
export function isIdOf(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
