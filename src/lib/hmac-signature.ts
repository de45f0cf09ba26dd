import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Timestamped HMAC-SHA256 signatures in the `t=<unix seconds>,v1=<hex>` header style (Stripe's
 * scheme): the MAC covers `<t>.<exact body bytes>`, so neither the body nor the time can be changed,
 * and a receiver refuses a signature whose time is outside its tolerance (a replay of an old,
 * genuinely signed message). Several `v1=` entries may be sent while a secret is being rotated.
 */
export const DEFAULT_SIGNATURE_TOLERANCE_S = 300;

export function timestampedSignatureHeader(secret: string, body: string, at: Date): string {
  const t = Math.floor(at.getTime() / 1000);
  return `t=${t},v1=${mac(secret, t, body)}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp' };

export function verifyTimestampedSignatureHeader(
  secrets: readonly string[],
  header: string | undefined,
  body: string,
  now: Date,
  toleranceS: number = DEFAULT_SIGNATURE_TOLERANCE_S,
): SignatureCheck {
  if (header === undefined || header === '') return { ok: false, reason: 'missing_signature' };
  let t: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) candidates.push(value);
  }
  if (t === undefined || candidates.length === 0) return { ok: false, reason: 'bad_signature' };
  // The MAC is checked before the time so that a forger learns nothing from the error kind.
  const expected = secrets.map((s) => Buffer.from(mac(s, t, body), 'hex'));
  const matches = candidates.some((c) => {
    const given = Buffer.from(c, 'hex');
    return expected.some((e) => e.length === given.length && timingSafeEqual(e, given));
  });
  if (!matches) return { ok: false, reason: 'bad_signature' };
  if (Math.abs(now.getTime() / 1000 - t) > toleranceS) return { ok: false, reason: 'stale_timestamp' };
  return { ok: true };
}

function mac(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}
