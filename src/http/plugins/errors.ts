import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../../db/db-errors.ts';
import { ApiError, type ErrorCode, type ErrorDetail, httpStatusOf } from '../../lib/error-catalogue.ts';
import { issuesFromAjv } from '../validation.ts';
import { IDEMPOTENCY_KEY_HEADER, invalidIdempotencyKey } from '../idempotency-header.ts';
import { trackAllowedMethods } from './allowed-methods.ts';

/**
 * The one place that picks an HTTP status: every failure becomes the error body
 * `{code, message, details, request_id}` with the status from the catalogue. Nothing internal
 * (stack, SQL, driver message) ever reaches a body; 500s are logged with the request id.
 */
const STORE_RETRY_AFTER_SECONDS = 2;

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  details: ErrorDetail[] = [],
  headers: Record<string, string> = {},
): FastifyReply {
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  // Also here, not only in the onRequest hook: the router's own refusals (frameworkErrors) never
  // run the hooks, and every answer carries its request id.
  reply.header('Request-Id', request.id);
  return reply
    .code(httpStatusOf(code))
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ code, message, details, request_id: request.id }));
}

/** The 413 answer: the limit in the message and in `details`, so a client can split or trim. */
const tooLarge = (limitBytes: number) =>
  new ApiError('payload_too_large', `The body is larger than the limit of ${limitBytes} bytes.`, {
    details: [{ limit_bytes: limitBytes }],
  });

/** Fastify's own errors (body parsing, routing) mapped onto the catalogue. */
function fromFastifyError(error: FastifyError, bodyLimitBytes: number): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(bodyLimitBytes);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.');
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return new ApiError('route_not_found', 'No such route.');
  if (status === 413) return tooLarge(bodyLimitBytes);
  if (status === 415) return new ApiError('unsupported_media_type', 'Send the body as application/json.');
  if (status >= 400 && status < 500) return new ApiError('invalid_request', 'The request is malformed.');
  return undefined;
}

/**
 * The router's refusals before any route runs (Fastify's `frameworkErrors` option): a path
 * parameter longer than the router's limit and a malformed percent-encoding. Without this they
 * would be Fastify's own bodies, without a request id.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendError(request, reply, 'invalid_request', 'The request has invalid fields.', [
      { field: 'path', issue: 'too_long', message: 'a path segment is longer than the longest id' },
    ]);
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    return sendError(request, reply, 'invalid_request', 'The request has invalid fields.', [
      { field: 'path', issue: 'invalid_format', message: 'the path has a malformed percent-encoding' },
    ]);
  }
  request.log.error({ err: error }, 'router error');
  return sendError(request, reply, 'internal_error', 'An unexpected error occurred. It has been logged.');
}

/** Call before any route is added: the 405 answers need every route's methods. */
export function registerErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  const allowed = trackAllowedMethods(app);
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return sendError(request, reply, error.code, error.message, error.details, error.headers);
    }
    if (error.validation !== undefined) {
      const issues = issuesFromAjv(error.validation as never, error.validationContext);
      if (issues.some((i) => i.field === `header.${IDEMPOTENCY_KEY_HEADER}`)) {
        const invalid = invalidIdempotencyKey();
        return sendError(request, reply, invalid.code, invalid.message, invalid.details);
      }
      return sendError(request, reply, 'invalid_request', 'The request has invalid fields.', issues);
    }
    if (isStoreUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      return sendError(request, reply, 'service_unavailable', 'The service is temporarily unavailable. Retry shortly.', [], {
        'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
      });
    }
    const mapped = fromFastifyError(error, bodyLimitBytes);
    if (mapped !== undefined) return sendError(request, reply, mapped.code, mapped.message, mapped.details);
    request.log.error({ err: error }, 'unhandled error');
    return sendError(request, reply, 'internal_error', 'An unexpected error occurred. It has been logged.');
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = allowed.of(path);
    if (methods.length > 0 && !methods.includes(request.method)) {
      return sendError(
        request,
        reply,
        'method_not_allowed',
        `${request.method} is not allowed here; use ${methods.join(', ')}.`,
        [],
        {
          Allow: methods.join(', '),
        },
      );
    }
    return sendError(request, reply, 'route_not_found', `No route ${request.method} ${path.slice(0, 200)}.`);
  });
}
