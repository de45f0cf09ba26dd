/**
 * `@tributary/node`: the Tributary API for Node.js 20+. Zero dependencies: global `fetch` and
 * `node:crypto`. Types come from the API's OpenAPI document (./generated/api.ts, generated).
 */
export { Tributary } from "./client.js";
export { Tributary as default } from "./client.js";
export { SDK_VERSION } from "./http.js";
export { ListRequest } from "./pagination.js";
export { DEFAULT_TOLERANCE_SECONDS, verify as verifyWebhook, webhooks, } from "./webhooks.js";
export { APIError, AuthenticationError, ConflictError, ConnectionError, IdempotencyError, InvalidRequestError, NotFoundError, RateLimitError, ServiceUnavailableError, TributaryError, UnprocessableError, WebhookVerificationError, } from "./errors.js";
export * from "./generated/api.js";
