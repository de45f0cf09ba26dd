import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from "./errors.js";
export const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
function header(headers, name) {
    if (typeof headers.get === 'function')
        return headers.get(name) ?? undefined;
    const record = headers;
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? value[0] : value;
}
const fail = (message) => new WebhookVerificationError({ code: 'webhook_verification_failed', message });
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
export function verify(payload, headers, secret, options = {}) {
    const key = secretKey(secret);
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (id === undefined || timestamp === undefined || signatures === undefined) {
        throw fail('Missing webhook-id, webhook-timestamp or webhook-signature header.');
    }
    if (!/^\d{1,12}$/.test(timestamp))
        throw fail('Invalid webhook-timestamp header.');
    const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const sentSeconds = Number.parseInt(timestamp, 10);
    if (nowSeconds - sentSeconds > toleranceSeconds)
        throw fail('The webhook timestamp is too old.');
    if (sentSeconds - nowSeconds > toleranceSeconds)
        throw fail('The webhook timestamp is too far in the future.');
    const body = typeof payload === 'string'
        ? Buffer.from(payload, 'utf8')
        : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
    const matched = signatures
        .split(' ')
        .filter((s) => s !== '')
        .some((candidate) => {
        const comma = candidate.indexOf(',');
        if (comma < 0 || candidate.slice(0, comma) !== 'v1')
            return false;
        const given = Buffer.from(candidate.slice(comma + 1), 'base64');
        return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!matched)
        throw fail('No matching webhook signature.');
    let event;
    try {
        event = JSON.parse(body.toString('utf8'));
    }
    catch {
        throw fail('The webhook body is not JSON.');
    }
    if (typeof event !== 'object' || event === null)
        throw fail('The webhook body is not an event object.');
    return event;
}
function secretKey(secret) {
    const base64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
    const key = Buffer.from(base64, 'base64');
    if (base64 === '' || key.length === 0)
        throw new TypeError('Tributary: the webhook secret must be a whsec_… secret');
    return key;
}
export const webhooks = { verify };
