import { createHash } from 'node:crypto';

/**
 * Digits derived from an attempt id. The sandbox providers derive every instruction from the
 * idempotency key (our attempt id), so re-sending an attempt gets exactly the same virtual account,
 * payment code or checkout URL even after the provider process restarted and lost its in-memory
 * charges: idempotent by construction, like a real provider keyed by our idempotency key.
 */
export function digitsFrom(seed: string, count: number): string {
  let out = '';
  let round = 0;
  while (out.length < count) {
    const hash = createHash('sha256').update(`${seed}:${round}`).digest();
    for (const byte of hash) {
      if (byte < 250) out += String(byte % 10); // reject 250..255 to keep digits uniform
      if (out.length === count) break;
    }
    round += 1;
  }
  return out;
}

export function tokenFrom(seed: string, length: number): string {
  return createHash('sha256').update(seed).digest('base64url').slice(0, length);
}
