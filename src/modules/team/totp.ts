import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/**
 * Two-factor codes (docs/team.md): TOTP per RFC 6238 (SHA-1, 6 digits, 30-second steps) with the
 * `otpauth` library, and single-use recovery codes. A code is accepted within one step either side
 * of now and only for a step later than the last one accepted (the caller stores it), so a code
 * seen over someone's shoulder cannot be used again.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;

const totpOf = (secret: string, label = 'account', issuer = 'Tributary') =>
  new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secret) });

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI an authenticator app reads from the QR code. */
export function totpUri(secret: string, email: string, merchantName: string): string {
  return totpOf(secret, email, `Tributary (${merchantName})`).toString();
}

/** The step a code is valid for (±1 step of `now`), or undefined. */
export function totpStepOf(secret: string, code: string, now: Date): number | undefined {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(secret).validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return undefined;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** The current code of a secret (tests, and nothing else in the server). */
export function totpCodeAt(secret: string, at: Date): string {
  return totpOf(secret).generate({ timestamp: at.getTime() });
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Ten codes like `k7p2-9xqm-4hts`, shown once; only their hashes are kept. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(12);
    const chars = Array.from(bytes, (b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

export function isRecoveryCodeShape(code: string): boolean {
  return /^[a-z0-9]{4}-?[a-z0-9]{4}-?[a-z0-9]{4}$/.test(code.trim().toLowerCase());
}

export function hashRecoveryCode(code: string): string {
  const normal = code.trim().toLowerCase().replace(/-/g, '');
  return createHash('sha256').update(`recovery\0${normal}`).digest('hex');
}
