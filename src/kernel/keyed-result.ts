import type { ErrorCode, ErrorDetail } from '../lib/error-catalogue.ts';

/**
 * What a keyed operation (create, cancel, refund, reconcile) answers: the response it recorded
 * under its Idempotency-Key (first run or replay), or a failure from the error catalogue.
 */
export type KeyedResult =
  | { kind: 'response'; status: number; body: string; replayed: boolean }
  | { kind: 'failure'; code: ErrorCode; message: string; details: ErrorDetail[]; retryAfterSeconds?: number };
