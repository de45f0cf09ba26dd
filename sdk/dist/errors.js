import { ERROR_STATUS } from "./generated/api.js";
/**
 * The base of every error the SDK throws. API errors carry the body's `code` (one of the error
 * catalogue, docs/errors.md), the HTTP `statusCode`, the `requestId` to quote to support and, for
 * a field problem, `param` (the first field `details` names).
 */
export class TributaryError extends Error {
    name = 'TributaryError';
    code;
    statusCode;
    requestId;
    param;
    details;
    /** Response headers, lower-case names. */
    headers;
    /** The Idempotency-Key the SDK sent (or you passed), to retry the same operation later. */
    idempotencyKey;
    constructor(init) {
        super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
        this.code = init.code;
        this.statusCode = init.statusCode;
        this.requestId = init.requestId;
        this.details = init.details ?? [];
        const field = this.details.find((d) => typeof d['field'] === 'string')?.['field'];
        this.param = typeof field === 'string' ? field : undefined;
        this.headers = init.headers ?? {};
        this.idempotencyKey = init.idempotencyKey;
    }
}
/** 400, 413, 415: the request is malformed or has invalid fields (`details`, `param`). */
export class InvalidRequestError extends TributaryError {
    name = 'InvalidRequestError';
}
/** 401: the API key is missing, unknown, expired or revoked. */
export class AuthenticationError extends TributaryError {
    name = 'AuthenticationError';
}
/** 404: no such object for this merchant and environment (or no such route). */
export class NotFoundError extends TributaryError {
    name = 'NotFoundError';
}
/** 409: the object's state forbids the operation, or a live payment already uses the `reference_no`. */
export class ConflictError extends TributaryError {
    name = 'ConflictError';
}
/**
 * `idempotency_request_in_progress` (409, left after the retries ran out) or
 * `idempotency_key_reused` (422: the key was used with another body).
 */
export class IdempotencyError extends TributaryError {
    name = 'IdempotencyError';
}
/** 422: understood but refused (currency, amount bounds, channel, refund rules, endpoint limit). */
export class UnprocessableError extends TributaryError {
    name = 'UnprocessableError';
}
/** Seconds from a `Retry-After` header (seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value, nowMs = Date.now()) {
    if (value === undefined || value.trim() === '')
        return undefined;
    if (/^\d+$/.test(value.trim()))
        return Number.parseInt(value.trim(), 10);
    const at = Date.parse(value);
    if (Number.isNaN(at))
        return undefined;
    return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
/** 429: too many requests; `retryAfterSeconds` says when to come back. */
export class RateLimitError extends TributaryError {
    name = 'RateLimitError';
    retryAfterSeconds = parseRetryAfter(this.headers['retry-after']);
}
/** 503: the service or every provider is unavailable for now; retry with the same Idempotency-Key. */
export class ServiceUnavailableError extends TributaryError {
    name = 'ServiceUnavailableError';
    retryAfterSeconds = parseRetryAfter(this.headers['retry-after']);
}
/** Other 5xx: an unexpected error on the server (logged there with `requestId`). */
export class APIError extends TributaryError {
    name = 'APIError';
}
/** No answer: the connection failed, was dropped or timed out (`code` `connection_error` or `timeout`). */
export class ConnectionError extends TributaryError {
    name = 'ConnectionError';
}
/** A webhook delivery whose signature, timestamp or headers do not check out: do not trust it. */
export class WebhookVerificationError extends TributaryError {
    name = 'WebhookVerificationError';
}
function classFor(code, statusCode) {
    if (code === 'idempotency_request_in_progress' || code === 'idempotency_key_reused')
        return IdempotencyError;
    // The catalogue decides the group of a known code; the HTTP status decides for anything newer.
    const status = code in ERROR_STATUS ? ERROR_STATUS[code] : statusCode;
    if (status === 401)
        return AuthenticationError;
    if (status === 404)
        return NotFoundError;
    if (status === 409)
        return ConflictError;
    if (status === 422)
        return UnprocessableError;
    if (status === 429)
        return RateLimitError;
    if (status === 503)
        return ServiceUnavailableError;
    if (status >= 500)
        return APIError;
    if (status >= 400)
        return InvalidRequestError;
    return APIError;
}
/** The typed error for an API answer that is not 2xx. */
export function errorFromResponse(statusCode, body, headers, idempotencyKey) {
    const parsed = isErrorBody(body) ? body : undefined;
    const code = parsed?.code ?? (statusCode >= 500 ? 'internal_error' : 'invalid_response');
    const Class = classFor(code, statusCode);
    return new Class({
        code,
        message: parsed?.message ?? `The API answered ${statusCode} without an error body.`,
        statusCode,
        requestId: parsed?.request_id ?? headers['request-id'],
        details: parsed?.details,
        headers,
        idempotencyKey,
    });
}
function isErrorBody(body) {
    if (typeof body !== 'object' || body === null)
        return false;
    const b = body;
    return typeof b['code'] === 'string' && typeof b['message'] === 'string' && Array.isArray(b['details']);
}
