import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes for the hot paths (ids, lease tokens). Each `randomFillSync` call
 * has a fixed cost far above the bytes it returns: per request we need a few dozen bytes across
 * several calls, which profiled at ~10 % of a replay's CPU. So bytes come from a pool refilled
 * 4 KiB at a time. Every byte is served once and never again (the pool is overwritten on refill),
 * so an id or token is exactly as unpredictable as one from its own `randomBytes` call.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

export function randomChunk(size: number): Buffer {
  if (size > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(size));
  if (offset + size > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  // A copy: the pool's bytes are overwritten on the next refill.
  const out = Buffer.from(pool.subarray(offset, offset + size));
  pool.fill(0, offset, offset + size);
  offset += size;
  return out;
}

/** A random token of `bytes` bytes, base64url (lease tokens, session ids). */
export function randomToken(bytes: number): string {
  return randomChunk(bytes).toString('base64url');
}
