import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 under the deployment secret, separated by purpose (`purpose\0text`), so a MAC made
 * for one use (a session token's hash, a CSRF token, a signed form field) is never valid for
 * another. What the dashboard and the team sign-in store or hand out instead of a secret.
 */
export function keyedMac(secret: string, purpose: string, text: string, encoding: 'hex' | 'base64url' = 'base64url'): string {
  return createHmac('sha256', secret).update(`${purpose}\0${text}`).digest(encoding);
}

/** Whether two secret strings are equal, in time that does not depend on where they differ. */
export function sameSecret(expected: string, presented: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
