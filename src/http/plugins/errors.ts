import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable } from '../../db/db-errors.ts';
import { ApiError, type ErrorCode, type ErrorDetail, httpStatusOf } from '../../lib/error-catalogue.ts';
import { issuesFromAjv } from '../validation.ts';

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

export function registerErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ApiError) {
      return sendError(request, reply, error.code, error.message, error.details, error.headers);
    }
    if (error.validation !== undefined) {
      const issues = issuesFromAjv(error.validation as never, error.validationContext);
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

  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      'route_not_found',
      `No route ${request.method} ${(request.url.split('?')[0] ?? '').slice(0, 200)}.`,
    ),
  );
}
