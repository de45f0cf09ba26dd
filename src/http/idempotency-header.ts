import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../lib/error-catalogue.ts';

/** 1–255 printable ASCII characters, no leading or trailing space (docs/idempotency.md). */
const KEY_PATTERN = /^[!-~](?:[ -~]{0,253}[!-~])?$/;

/**
 * The headers schema of every POST that takes an Idempotency-Key: the document states the rule,
 * and a key that breaks it is `invalid_idempotency_key` (plugins/errors.ts), as idempotencyKeyOf says.
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IdempotencyKeyHeadersSchema = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: KEY_PATTERN.source,
      description:
        '1-255 printable ASCII characters, no leading or trailing space (else 400 `invalid_idempotency_key`); see docs/idempotency.md. The same key with another body is 422 `idempotency_key_reused`; while its first request runs, 409 `idempotency_request_in_progress`.',
    }),
  ),
});

/**
 * For POSTs whose body is optional (`curl -X POST …/cancel` sends none): no body means `{}`, so
 * the body schema validates it like an empty object.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? undefined : raw;
  if (value === undefined || !KEY_PATTERN.test(value)) throw invalidIdempotencyKey();
  return value;
}

export function invalidIdempotencyKey(): ApiError {
  return new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters.', {
    details: [
      {
        field: 'Idempotency-Key',
        issue: 'invalid_format',
        message: '1-255 printable ASCII characters, no leading or trailing space',
      },
    ],
  });
}
