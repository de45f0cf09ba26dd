import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
 * `{webhook-id}.{webhook-timestamp}.{body}` with the exact body bytes sent, HMAC-SHA256 keyed by
 * the base64-decoded part of a `whsec_…` secret, serialised as `v1,<base64>`. During a rotation
 * the header carries one signature per valid secret, space-separated; a receiver accepts the
 * request when any signature matches any secret it knows.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** 32 random bytes: the spec asks for 24 to 64. */
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('not a whsec_ secret');
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.`).update(body, 'utf8').digest('base64')}`;
}

/** The `webhook-signature` header value: one `v1,` signature per secret, current secret first. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => signatureOf(s, id, timestampSeconds, body)).join(' ');
}
