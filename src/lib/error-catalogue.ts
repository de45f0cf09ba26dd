/**
 * The one catalogue of error codes. Every error body the API sends carries one of these codes, and
 * the HTTP status comes only from this table (read by the error handler). docs/errors.md is
 * generated from it (`npm run gen:docs`) and CI fails when they drift.
 *
 * Codes are stable snake_case; adding a code is not a breaking change, renaming one is.
 */
export const ERROR_CATALOGUE = {
  invalid_json: {
    status: 400,
    description:
      'The body is empty or not valid JSON. (Valid JSON with a `__proto__` key is `invalid_request` with the issue `forbidden_key`.)',
  },
  invalid_request: {
    status: 400,
    description: 'One or more fields are missing, unknown or invalid. `details` lists each problem as `{field, issue, message}`.',
  },
  invalid_idempotency_key: {
    status: 400,
    description: 'The `Idempotency-Key` header is empty, longer than 255 characters or not printable ASCII.',
  },
  invalid_api_version: { status: 400, description: 'The `Api-Version` header names no known version.' },
  unauthorized: {
    status: 401,
    description: 'The `Authorization: Bearer <API_KEY>` header is missing, malformed, unknown, expired or revoked.',
  },
  client_secret_invalid: {
    status: 401,
    description: 'Checkout selection only: the `client_secret` is missing or is not the one this checkout was created with.',
  },
  invalid_signature: {
    status: 401,
    description:
      'Provider notifications only: the signature header is missing, does not match the body, or its timestamp is outside the 300 s window (a replay). Nothing was stored.',
  },
  resource_not_found: {
    status: 404,
    description:
      "No such object for this merchant and environment. Another merchant's or the other environment's id gives this same answer.",
  },
  route_not_found: { status: 404, description: 'No such path.' },
  method_not_allowed: {
    status: 405,
    description: 'The path exists, but not with this method; the `Allow` header lists the methods it has.',
  },
  reference_no_conflict: {
    status: 409,
    description: 'A live (processing, pending or succeeded) payment already uses this `reference_no`; `details` names it.',
  },
  idempotency_request_in_progress: {
    status: 409,
    description: 'A request with this `Idempotency-Key` is still running. Retry after `Retry-After` seconds.',
  },
  checkout_not_open: {
    status: 409,
    description: 'The checkout is completed or expired (or past `expires_at`): nothing more can be selected or expired on it.',
  },
  checkout_changed: {
    status: 409,
    description:
      'The hosted checkout page was shown at an older version of the checkout (another tab or a double click chose first): nothing was selected; the page shows the checkout as it now is.',
  },
  checkout_busy: {
    status: 409,
    description: 'Another selection on this checkout is running. Retry after `Retry-After` seconds.',
  },
  payment_link_inactive: {
    status: 409,
    description: 'The payment link has been deactivated: it takes no more visits (its earlier checkouts stay payable).',
  },
  payment_link_expired: {
    status: 409,
    description: 'The payment link is past its `expires_at`: it takes no more visits.',
  },
  payment_link_used_up: {
    status: 409,
    description:
      'The payment link has reached `max_uses`: its completed checkouts and its open ones hold every use. `details` gives `max_uses`; a use comes free when an open checkout of the link expires.',
  },
  payment_state_conflict: {
    status: 409,
    description: 'The payment is not in a state that allows this operation (for example canceling a paid payment).',
  },
  webhook_endpoint_disabled: {
    status: 409,
    description: 'The webhook endpoint is disabled; enable it (`POST /webhook_endpoint/{id}/update`) before redelivering to it.',
  },
  payload_too_large: {
    status: 413,
    description:
      'The body is larger than the limit (`BODY_LIMIT_BYTES`, 64 KiB by default); the message and `details` (`{limit_bytes}`) give it.',
  },
  unsupported_media_type: { status: 415, description: 'The body must be sent as `application/json`.' },
  idempotency_key_reused: {
    status: 422,
    description: 'This `Idempotency-Key` was already used with a different request body.',
  },
  currency_not_supported: {
    status: 422,
    description: 'No enabled connector accepts this currency for the requested channel.',
  },
  amount_out_of_range: {
    status: 422,
    description: "The amount is outside every capable connector's bounds; `details` names the bounds.",
  },
  channel_not_offered: {
    status: 422,
    description: 'Checkout selection only: the checkout does not offer this channel (`details` lists the ones it does).',
  },
  channel_unavailable: {
    status: 422,
    description: 'No enabled connector serves the requested channel in this environment.',
  },
  operation_not_supported: {
    status: 422,
    description: "The payment's channel or connector does not support this operation.",
  },
  refund_not_supported: {
    status: 422,
    description:
      "The payment's channel or connector cannot refund (over-the-counter payments), or refunds only the whole amount; `details` names the channel.",
  },
  refund_exceeds_captured: {
    status: 422,
    description:
      'The refund is larger than what is left of the payment: what the payer paid less succeeded and pending refunds. `details` gives what is still refundable.',
  },
  webhook_endpoint_limit_reached: {
    status: 422,
    description: 'This merchant already has the maximum number of webhook endpoints in this environment (20); delete one first.',
  },
  rate_limited: { status: 429, description: 'Too many requests. Retry after `Retry-After` seconds.' },
  internal_error: {
    status: 500,
    description: 'An unexpected error. It is logged with the `request_id`; the body never carries internals.',
  },
  service_unavailable: {
    status: 503,
    description: 'A dependency (the database) is unavailable or the server is shutting down. Retry after `Retry-After` seconds.',
  },
  provider_unavailable: {
    status: 503,
    description:
      'No provider could issue instructions right now. Retry with the same `Idempotency-Key` after `Retry-After` seconds: the same payment is resumed.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One problem with one field of the request. `issue` is a stable snake_case code. */
export interface FieldIssue {
  field: string;
  issue: string;
  message: string;
}

export type ErrorDetail = FieldIssue | Record<string, unknown>;

/**
 * A client-visible error, thrown at the edge (routes, plugins) with a catalogue code. Modules
 * return failures as values; routes turn them into ApiErrors.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: ErrorCode;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.code = code;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}
