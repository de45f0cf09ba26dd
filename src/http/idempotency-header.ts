import type { FastifyRequest } from 'fastify';
import { ApiError } from '../lib/error-catalogue.ts';

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
