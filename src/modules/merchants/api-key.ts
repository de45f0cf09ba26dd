import { createHmac, randomBytes } from 'node:crypto';
import type { Environment } from '../../kernel/index.ts';

/**
 * Secret API keys: `sk_test_…` (sandbox) and `sk_live_…` (production) followed by 32 base62
 * characters (~190 bits). The key is shown once; we store only HMAC-SHA256(deployment secret,
 * key) and a short display prefix. A keyed hash (not a bare SHA-256) means a stolen table alone
 * cannot be used to test guesses offline.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 32;
export const API_KEY_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{32}$/;

export function keyPrefixFor(environment: Environment): string {
  return environment === 'sandbox' ? 'sk_test_' : 'sk_live_';
}

export function generateApiKey(environment: Environment): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(48)) {
      // 248 = 4 × 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248) body += BASE62[byte % 62];
      if (body.length === KEY_BODY_LENGTH) break;
    }
  }
  return keyPrefixFor(environment) + body;
}

export function hashApiKey(secret: string, key: string): string {
  return createHmac('sha256', secret).update(key).digest('hex');
}

/** What we show for a key after creation: the environment prefix and the first characters. */
export function displayPrefix(key: string): string {
  return `${key.slice(0, 14)}…`;
}

/** The environment a well-formed key belongs to, or undefined for anything else. */
export function environmentOfKey(key: string): Environment | undefined {
  const match = API_KEY_PATTERN.exec(key);
  if (match === null) return undefined;
  return match[1] === 'test' ? 'sandbox' : 'production';
}
