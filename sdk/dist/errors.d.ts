import { type ErrorCode } from './generated/api.ts';
/** Codes of failures that happen on the client's side of the wire (no error body from the API). */
export type ClientErrorCode = 'connection_error' | 'timeout' | 'invalid_response' | 'webhook_verification_failed';
export interface TributaryErrorInit {
    code: ErrorCode | ClientErrorCode;
    message: string;
    statusCode?: number | undefined;
    requestId?: string | undefined;
    details?: Record<string, unknown>[] | undefined;
    headers?: Record<string, string> | undefined;
    idempotencyKey?: string | undefined;
    cause?: unknown;
}
/**
 * The base of every error the SDK throws. API errors carry the body's `code` (one of the error
 * catalogue, docs/errors.md), the HTTP `statusCode`, the `requestId` to quote to support and, for
 * a field problem, `param` (the first field `details` names).
 */
export declare class TributaryError extends Error {
    name: string;
    readonly code: ErrorCode | ClientErrorCode;
    readonly statusCode: number | undefined;
    readonly requestId: string | undefined;
    readonly param: string | undefined;
    readonly details: Record<string, unknown>[];
    /** Response headers, lower-case names. */
    readonly headers: Record<string, string>;
    /** The Idempotency-Key the SDK sent (or you passed), to retry the same operation later. */
    readonly idempotencyKey: string | undefined;
    constructor(init: TributaryErrorInit);
}
/** 400, 413, 415: the request is malformed or has invalid fields (`details`, `param`). */
export declare class InvalidRequestError extends TributaryError {
    name: string;
}
/** 401: the API key is missing, unknown, expired or revoked. */
export declare class AuthenticationError extends TributaryError {
    name: string;
}
/** 404: no such object for this merchant and environment (or no such route). */
export declare class NotFoundError extends TributaryError {
    name: string;
}
/** 409: the object's state forbids the operation, or a live payment already uses the `reference_no`. */
export declare class ConflictError extends TributaryError {
    name: string;
}
/**
 * `idempotency_request_in_progress` (409, left after the retries ran out) or
 * `idempotency_key_reused` (422: the key was used with another body).
 */
export declare class IdempotencyError extends TributaryError {
    name: string;
}
/** 422: understood but refused (currency, amount bounds, channel, refund rules, endpoint limit). */
export declare class UnprocessableError extends TributaryError {
    name: string;
}
/** Seconds from a `Retry-After` header (seconds or an HTTP date); undefined when absent or unreadable. */
export declare function parseRetryAfter(value: string | undefined, nowMs?: number): number | undefined;
/** 429: too many requests; `retryAfterSeconds` says when to come back. */
export declare class RateLimitError extends TributaryError {
    name: string;
    readonly retryAfterSeconds: number | undefined;
}
/** 503: the service or every provider is unavailable for now; retry with the same Idempotency-Key. */
export declare class ServiceUnavailableError extends TributaryError {
    name: string;
    readonly retryAfterSeconds: number | undefined;
}
/** Other 5xx: an unexpected error on the server (logged there with `requestId`). */
export declare class APIError extends TributaryError {
    name: string;
}
/** No answer: the connection failed, was dropped or timed out (`code` `connection_error` or `timeout`). */
export declare class ConnectionError extends TributaryError {
    name: string;
}
/** A webhook delivery whose signature, timestamp or headers do not check out: do not trust it. */
export declare class WebhookVerificationError extends TributaryError {
    name: string;
}
/** The typed error for an API answer that is not 2xx. */
export declare function errorFromResponse(statusCode: number, body: unknown, headers: Record<string, string>, idempotencyKey: string | undefined): TributaryError;
