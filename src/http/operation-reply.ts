import type { FastifyReply } from 'fastify';
import { ApiError, type ErrorCode, type ErrorDetail } from '../lib/error-catalogue.ts';
import { sendRawJson } from './raw-json.ts';

/** A module's failure value, as every operation returns it. */
export interface OperationFailure {
  kind: 'failure';
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
  retryAfterSeconds?: number;
}

/** Turns a module's failure into the catalogue error (with Retry-After when it has one). */
export function apiErrorOf(failure: OperationFailure): ApiError {
  return new ApiError(failure.code, failure.message, {
    details: failure.details,
    ...(failure.retryAfterSeconds === undefined ? {} : { headers: { 'Retry-After': String(failure.retryAfterSeconds) } }),
  });
}

/**
 * Sends the result of an idempotent operation: the stored bytes as they are (so a replay is
 * identical to the first answer), flagged `Idempotent-Replayed` when replayed; a failure throws.
 */
export function sendOperationResult(
  reply: FastifyReply,
  result: OperationFailure | { kind: 'response'; status: number; body: string; replayed: boolean },
): FastifyReply {
  if (result.kind === 'failure') throw apiErrorOf(result);
  if (result.replayed) reply.header('Idempotent-Replayed', 'true');
  return sendRawJson(reply, result.status, result.body);
}
