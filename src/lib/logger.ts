import { pino } from 'pino';
import { traceLogFields } from './tracing.ts';

/**
 * Structured logs (pino). Secrets never reach a log line: the Authorization header, API keys,
 * webhook secrets and anything named like a secret are redacted by path, and connectors pass
 * provider payloads through `redactSecrets` before logging them.
 */
export type Logger = pino.Logger;

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'api_key',
  'apiKey',
  'secret',
  '*.secret',
  '*.api_key',
  '*.password',
  'password',
  'card_number',
  '*.card_number',
  // The payer's e-mail (docs/payer-data.md): no log line carries it, even a body logged by mistake.
  'email',
  '*.email',
  '*.*.email',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'tributary' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // With tracing on, every line written inside a span carries its trace_id and span_id: a
      // request's lines carry both request_id and trace_id (docs/tracing.md). Off: nothing added.
      mixin: traceLogFields,
    },
    destination,
  );
}

const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk_(?:test|live)_[A-Za-z0-9]+/g, // our API keys
  /\bwhsec_[A-Za-z0-9+/=]+/g, // webhook secrets
  /\bsbx_(?:sk|whsec)_[A-Za-z0-9]+/g, // sandbox provider API keys and signing secrets
  /\b(?:SB-)?Mid-server-[A-Za-z0-9_-]+/g, // Midtrans server keys (sandbox `SB-Mid-server-…`, production `Mid-server-…`)
  /\bxnd_(?:development|production|public_development|public_production)_[A-Za-z0-9+/=]+/g, // Xendit API keys
  /\b(?:\d[ -]?){13,19}\b/g, // anything shaped like a card number (PAN)
];

/** Masks secrets and card-number-shaped digit runs inside free text before it is logged. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, '[redacted]');
  return out;
}
