import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../lib/error-catalogue.ts';

/** The headers schema of every POST that takes an Idempotency-Key. */
export const IdempotencyKeyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ description: '1-255 printable ASCII characters; see docs/idempotency.md.' })),
});

/**
 * For POSTs whose body is optional (`curl -X POST …/cancel` sends none): no body means `{}`, so
 * the body schema validates it like an empty object.
 */
export async function emptyBodyAsObject(request: FastifyRequest): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/** 1–255 printable ASCII characters, no leading or trailing space (docs/idempotency.md). */
const KEY_PATTERN = /^[!-~](?:[ -~]{0,253}[!-~])?$/;

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? undefined : raw;
  if (value === undefined || !KEY_PATTERN.test(value)) {
    throw new ApiError('invalid_idempotency_key', 'Idempotency-Key must be 1-255 printable ASCII characters.', {
      details: [
        {
          field: 'Idempotency-Key',
          issue: 'invalid_format',
          message: '1-255 printable ASCII characters, no leading or trailing space',
        },
      ],
    });
  }
  return value;
}
