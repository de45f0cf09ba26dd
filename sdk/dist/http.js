import { randomUUID } from 'node:crypto';
import { ConnectionError, errorFromResponse, parseRetryAfter, TributaryError } from "./errors.js";
import { OPERATIONS } from "./generated/api.js";
/** Kept equal to sdk/package.json's version (a test checks). */
export const SDK_VERSION = '0.1.0';
const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A server asking for a longer wait than this gets its error back at once: the caller decides. */
const MAX_RETRY_AFTER_MS = 60_000;
/** Bounds the retry loop whatever the caller passes. */
const MAX_RETRIES_CEILING = 10;
const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Operations the document gives no Idempotency-Key but the SDK sends one for and retries as keyed:
 * POST /checkout/{id}/select makes a payment, and the server never collects twice for one checkout
 * (a new selection cancels the previous pending payment; one live payment per reference), so a
 * retry after a lost answer is safe. The server ignores the key there: a retry is a new selection,
 * not a replay (docs/checkout.md).
 */
const KEYED_BY_THE_SDK = new Set(['selectCheckoutMethod']);
/**
 * The one place requests are made. Each call:
 * - builds method, path and Idempotency-Key use from the generated OPERATIONS table (and
 *   KEYED_BY_THE_SDK);
 * - generates an Idempotency-Key once per logical call (unless given) and sends the same key on
 *   every retry, so a retry after a lost answer returns the first result instead of doing the work
 *   twice (docs/idempotency.md);
 * - retries, at most `maxRetries` times, only where a retry cannot do the work twice: network
 *   failures and 503 for GETs and keyed operations, 409 `idempotency_request_in_progress` for keyed
 *   ones, 429 for everything (a rate-limited request is refused before any work), and a refused
 *   connection for everything (nothing was sent);
 * - waits between tries with jittered exponential backoff, and never less than `Retry-After`.
 */
export class HttpClient {
    #apiKey;
    #baseUrl;
    #maxRetries;
    #timeoutMs;
    #apiVersion;
    #fetch;
    #sleep;
    constructor(apiKey, options = {}) {
        if (typeof apiKey !== 'string' || apiKey.trim() === '')
            throw new TypeError('Tributary: an API key (sk_test_… or sk_live_…) is required');
        this.#apiKey = apiKey;
        this.#baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
        this.#maxRetries = clampRetries(options.maxRetries ?? DEFAULT_MAX_RETRIES);
        this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        this.#apiVersion = options.apiVersion;
        this.#fetch = options.fetch ?? globalThis.fetch;
        this.#sleep = options.sleep ?? defaultSleep;
    }
    async request(id, input, options = {}) {
        const op = OPERATIONS[id];
        const keyed = op.idempotencyKey || KEYED_BY_THE_SDK.has(id);
        const url = this.#url(op.path, op.pathParams, input.params, input.query);
        const idempotencyKey = keyed ? (options.idempotencyKey ?? `tributary-node-${randomUUID()}`) : undefined;
        const headers = {
            authorization: `Bearer ${this.#apiKey}`,
            accept: op.response === 'json' ? 'application/json' : '*/*',
            'user-agent': `tributary-node/${SDK_VERSION}`,
        };
        if (idempotencyKey !== undefined)
            headers['idempotency-key'] = idempotencyKey;
        if (this.#apiVersion !== undefined)
            headers['api-version'] = this.#apiVersion;
        let body;
        if (op.body) {
            headers['content-type'] = 'application/json';
            body = JSON.stringify(input.body ?? {});
        }
        // Whether a retry can never do the work twice: reads, and operations the server dedupes by key.
        const safe = op.method === 'GET' || keyed;
        const maxRetries = clampRetries(options.maxRetries ?? this.#maxRetries);
        const timeoutMs = options.timeoutMs ?? this.#timeoutMs;
        for (let attempt = 1;; attempt += 1) {
            options.signal?.throwIfAborted();
            const outcome = await this.#try(url, op.method, headers, body, timeoutMs, options.signal, idempotencyKey);
            if (outcome.kind === 'ok') {
                if (op.response !== 'json')
                    return outcome.text;
                return withMeta(outcome.json, {
                    statusCode: outcome.status,
                    requestId: outcome.headers['request-id'],
                    idempotencyKey,
                    replayed: outcome.headers['idempotent-replayed'] === 'true',
                    attempts: attempt,
                });
            }
            const error = outcome.error;
            const retryAfterMs = retryAfterOf(error);
            const retriable = attempt <= maxRetries &&
                (retryAfterMs === undefined || retryAfterMs <= MAX_RETRY_AFTER_MS) &&
                isRetriable(error, safe, keyed, outcome.refused);
            if (!retriable)
                throw error;
            const backoffMs = Math.min(INITIAL_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS) * (0.5 + Math.random() * 0.5);
            // Never earlier than the server asked; a little later at random, so a crowd of throttled
            // clients does not come back in the same millisecond.
            const waitMs = retryAfterMs === undefined ? backoffMs : Math.max(backoffMs, retryAfterMs * (1 + Math.random() * 0.1));
            await abortable(this.#sleep(Math.ceil(waitMs)), options.signal);
        }
    }
    #url(path, names, params, query) {
        let resolved = path;
        for (const name of names) {
            const value = params?.[name];
            if (typeof value !== 'string' || value === '')
                throw new TypeError(`Tributary: ${name} must be a non-empty string`);
            resolved = resolved.replace(`{${name}}`, encodeURIComponent(value));
        }
        const search = new URLSearchParams();
        for (const [k, v] of Object.entries((query ?? {}))) {
            if (v === undefined || v === null)
                continue;
            search.append(k, v instanceof Date ? v.toISOString() : String(v));
        }
        const qs = search.toString();
        return `${this.#baseUrl}${resolved}${qs === '' ? '' : `?${qs}`}`;
    }
    async #try(url, method, headers, body, timeoutMs, signal, idempotencyKey) {
        const timeout = AbortSignal.timeout(timeoutMs);
        const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
        let status;
        let responseHeaders;
        let text;
        try {
            const res = await this.#fetch(url, { method, headers, ...(body === undefined ? {} : { body }), signal: combined });
            status = res.status;
            responseHeaders = Object.fromEntries([...res.headers].map(([k, v]) => [k.toLowerCase(), v]));
            text = await res.text();
        }
        catch (cause) {
            if (signal?.aborted === true)
                throw signal.reason;
            const timedOut = timeout.aborted;
            return {
                kind: 'error',
                refused: !timedOut && connectionRefused(cause),
                error: new ConnectionError({
                    code: timedOut ? 'timeout' : 'connection_error',
                    message: timedOut
                        ? `No answer from Tributary within ${timeoutMs} ms (${method} ${new URL(url).pathname}).`
                        : `Could not reach Tributary or the connection was lost (${method} ${new URL(url).pathname}).`,
                    idempotencyKey,
                    cause,
                }),
            };
        }
        let json;
        const isJson = (responseHeaders['content-type'] ?? '').includes('json');
        if (isJson && text !== '') {
            try {
                json = JSON.parse(text);
            }
            catch (cause) {
                json = undefined;
                if (status >= 200 && status < 300) {
                    return {
                        kind: 'error',
                        refused: false,
                        error: new TributaryError({
                            code: 'invalid_response',
                            message: 'Tributary answered with invalid JSON.',
                            statusCode: status,
                            requestId: responseHeaders['request-id'],
                            headers: responseHeaders,
                            idempotencyKey,
                            cause,
                        }),
                    };
                }
            }
        }
        if (status >= 200 && status < 300)
            return { kind: 'ok', status, headers: responseHeaders, json, text };
        return { kind: 'error', refused: false, error: errorFromResponse(status, json, responseHeaders, idempotencyKey) };
    }
}
function isRetriable(error, safe, keyed, refused) {
    if (refused)
        return true; // the request never left: nothing can have happened
    if (error.statusCode === undefined)
        return safe && (error.code === 'connection_error' || error.code === 'timeout');
    if (error.statusCode === 429)
        return true;
    if (error.statusCode === 409)
        return keyed && error.code === 'idempotency_request_in_progress';
    if (error.statusCode === 503)
        return safe;
    return false;
}
function retryAfterOf(error) {
    const seconds = parseRetryAfter(error.headers['retry-after']);
    return seconds === undefined ? undefined : seconds * 1000;
}
function connectionRefused(error) {
    for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth += 1) {
        if (e.code === 'ECONNREFUSED')
            return true;
        e = e.cause;
    }
    return false;
}
function clampRetries(n) {
    if (!Number.isInteger(n) || n < 0)
        throw new TypeError('Tributary: maxRetries must be a non-negative integer');
    return Math.min(n, MAX_RETRIES_CEILING);
}
function withMeta(value, meta) {
    if (typeof value === 'object' && value !== null) {
        Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
    }
    return value;
}
async function abortable(wait, signal) {
    if (signal === undefined)
        return wait;
    signal.throwIfAborted();
    let onAbort;
    const aborted = new Promise((_, reject) => {
        onAbort = () => reject(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
        await Promise.race([wait, aborted]);
    }
    finally {
        if (onAbort !== undefined)
            signal.removeEventListener('abort', onAbort);
    }
}
