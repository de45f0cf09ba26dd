/**
 * `@tributary/node`: the Tributary API for Node.js 20+. Zero dependencies: global `fetch` and
 * `node:crypto`. Types come from the API's OpenAPI document (./generated/api.ts, generated).
 */
export { Tributary } from './client.ts';
export type { CheckoutWithPayment } from './client.ts';
export { Tributary as default } from './client.ts';
export { type ClientOptions, type RequestOptions, type ResponseMeta, SDK_VERSION, type WithResponse } from './http.ts';
export { ListRequest, type ListPage } from './pagination.ts';
export { DEFAULT_TOLERANCE_SECONDS, verify as verifyWebhook, type VerifyOptions, type WebhookHeaders, webhooks, } from './webhooks.ts';
export { APIError, AuthenticationError, type ClientErrorCode, ConflictError, ConnectionError, IdempotencyError, InvalidRequestError, NotFoundError, RateLimitError, ServiceUnavailableError, TributaryError, UnprocessableError, WebhookVerificationError, } from './errors.ts';
export * from './generated/api.ts';
