import type { WebhookEvent } from './generated/api.ts';
/** Header maps as Node (`req.headers`), fetch (`Headers`) or plain objects give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;
export interface VerifyOptions {
    /** How far `webhook-timestamp` may be from now, either way (default 300 s, Standard Webhooks). */
    toleranceSeconds?: number;
    /** The time to check against (default: now). */
    now?: Date;
}
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
/**
 * Verifies a webhook delivery the way Standard Webhooks specifies, and returns the event.
 *
 * `payload` must be the raw body as received (bytes or the exact string): a body parsed and
 * serialised again no longer matches. The signature is `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64 part of the `whsec_…` secret;
 * `webhook-signature` may carry several (space-separated, during a secret rotation) and one match
 * is enough. The timestamp must be within `toleranceSeconds` of now, so a captured delivery
 * cannot be replayed later. Comparison is constant-time. Throws WebhookVerificationError.
 */
export declare function verify(payload: string | Uint8Array, headers: WebhookHeaders, secret: string, options?: VerifyOptions): WebhookEvent;
export declare const webhooks: {
    verify: typeof verify;
};
