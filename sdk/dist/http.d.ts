import { type OperationId, type OperationTypes } from './generated/api.ts';
/** Kept equal to sdk/package.json's version (a test checks). */
export declare const SDK_VERSION = "0.1.0";
export interface ClientOptions {
    /** Where the API is served; default `http://127.0.0.1:8080` (what `npm start` serves). */
    baseUrl?: string;
    /** Retries after the first try of one call (default 2): see `retriable` below for which answers. */
    maxRetries?: number;
    /** Deadline of one try, body included (default 60 000 ms; a create may try several providers). */
    timeoutMs?: number;
    /** Sent as `Api-Version` (a dated version); absent: the merchant's pinned version. */
    apiVersion?: string;
    /** Replaces the global `fetch` (e.g. to add a proxy or instrumentation). */
    fetch?: typeof fetch;
    /** How the client waits between tries (default `setTimeout`); tests replace it to move a clock instead. */
    sleep?: (ms: number) => Promise<void>;
}
export interface RequestOptions {
    /**
     * For operations that take one (create, cancel, refund, reconciliation, checkout create and
     * select): the key of this logical call. Default: a new random key per call, reused by every
     * retry of that call. Pass your own (e.g. derived from your order id) to make a retry safe
     * across processes and restarts too.
     */
    idempotencyKey?: string;
    maxRetries?: number;
    timeoutMs?: number;
    /** Cancels the call, including a wait between retries. */
    signal?: AbortSignal;
}
/** What the SDK knows about the HTTP answer behind a returned object. */
export interface ResponseMeta {
    statusCode: number;
    requestId: string | undefined;
    /** The Idempotency-Key sent, if the operation takes one. */
    idempotencyKey: string | undefined;
    /** True when the server replayed a finished request with this key (`Idempotent-Replayed`). */
    replayed: boolean;
    /** How many tries the call took (1 without retries). */
    attempts: number;
}
/** A returned object with its non-enumerable `lastResponse` (like stripe-node). */
export type WithResponse<T> = T & {
    readonly lastResponse: ResponseMeta;
};
export interface OperationInput<K extends OperationId> {
    params?: OperationTypes[K]['params'];
    query?: OperationTypes[K]['query'];
    body?: OperationTypes[K]['body'];
}
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
export declare class HttpClient {
    #private;
    constructor(apiKey: string, options?: ClientOptions);
    request<K extends OperationId>(id: K, input: OperationInput<K>, options?: RequestOptions): Promise<OperationTypes[K]['response'] extends string ? string : WithResponse<OperationTypes[K]['response']>>;
}
