import type { Logger } from '../../lib/logger.ts';
import { deadline } from '../../lib/deadline.ts';
import { redactSecrets } from '../../lib/logger.ts';
import { injectTraceHeaders, markFailed, tracingEnabled, withSpan } from '../../lib/tracing.ts';
import { nodeHttpTransport, type ProviderTransport, type TransportResponse } from './provider-transport.ts';

/**
 * The HTTP client every HTTP connector uses to reach its provider. It owns the rules that must not
 * differ between connectors:
 *
 * - a deadline: the caller's signal (the connector timeout) bounds the whole call, and each try
 *   also has its own shorter timeout so that one hung try leaves room for a retry;
 * - bounded retries, only where safe: reads, and writes that carry an idempotency key (our attempt
 *   or refund id), so the provider answers a re-sent write with what it already did;
 * - redaction: the provider API key is never logged, and every logged text goes through
 *   `redactSecrets`.
 */
export interface ProviderHttpOptions {
  connector: string;
  /** Resolved per call: in the embedded default the providers live at our own listen address. */
  baseUrl: () => string;
  apiKey: string;
  /**
   * How the API key travels: `bearer` (default) or `basic`, the key as the Basic-auth username with
   * an empty password (Xendit).
   */
  auth?: 'bearer' | 'basic';
  /** The header carrying the idempotency key (default `idempotency-key`; Xendit: `x-idempotency-key`). */
  idempotencyHeader?: string;
  log: Logger;
  /** Retries after the first try (transport errors, 429, 502, 503, 504). */
  maxRetries?: number;
  retryBackoffMs?: number;
  perTryTimeoutMs?: number;
  /** The wire (default node:http with keep-alive; tests pass fetch-shaped fakes). */
  fetchImpl?: typeof fetch | ProviderTransport;
}

export interface ProviderRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  body?: unknown;
  /** Sent as `Idempotency-Key`; makes a POST safe to retry. */
  idempotencyKey?: string;
  /**
   * The POST is safe to retry without an `Idempotency-Key` header: the provider dedupes it by a
   * field of the body (e.g. Midtrans' `order_id`, answered 406 on a re-send).
   */
  retrySafe?: boolean;
  /** The JSON body already serialized (instead of `body`), e.g. to write integers from bigints exactly. */
  bodyText?: string;
  /** Extra request headers (never credentials: those come from the options). */
  headers?: Readonly<Record<string, string>>;
}

export type ProviderResponse =
  | { kind: 'response'; status: number; body: unknown }
  /** No usable answer: the provider may or may not have acted. */
  | { kind: 'unknown'; code: 'timeout' | 'network_error' | 'bad_response' | 'provider_error'; message: string };

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
const MAX_LOGGED_BODY_CHARS = 500;

export interface ProviderHttp {
  send(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResponse>;
}

export function createProviderHttp(options: ProviderHttpOptions): ProviderHttp {
  const maxRetries = options.maxRetries ?? 2;
  const backoffMs = options.retryBackoffMs ?? 100;
  const perTryTimeoutMs = options.perTryTimeoutMs ?? 4_000;
  const doFetch = (options.fetchImpl ?? nodeHttpTransport) as ProviderTransport;
  const log = options.log.child({ connector: options.connector });

  /**
   * One try on the wire, in a client span when tracing is on (docs/tracing.md): named by method
   * and connector (the path carries ids), with the path but never the query, the body or the
   * headers; the provider receives `traceparent`, so its side of the call can join the trace.
   */
  function traced(request: ProviderRequest, signal: AbortSignal, attempt: number): Promise<ProviderResponse> {
    if (!tracingEnabled()) return once(request, signal);
    const target = safeUrl(options.baseUrl());
    return withSpan(
      `${request.method} ${options.connector}`,
      {
        kind: 'client',
        attributes: {
          'http.request.method': request.method,
          'server.address': target?.hostname ?? 'unknown',
          ...(target === undefined ? {} : { 'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)) }),
          'url.path': `${target?.pathname.replace(/\/+$/, '') ?? ''}${request.path.split('?')[0] ?? ''}`,
          'tributary.connector': options.connector,
          ...(attempt > 1 ? { 'http.request.resend_count': attempt - 1 } : {}),
        },
      },
      async (span) => {
        const response = await once(request, signal);
        if (span !== undefined) {
          if (response.kind === 'unknown') markFailed(span, response.code);
          else {
            span.setAttribute('http.response.status_code', response.status);
            if (response.status >= 400) markFailed(span, String(response.status));
          }
        }
        return response;
      },
    );
  }

  async function once(request: ProviderRequest, signal: AbortSignal): Promise<ProviderResponse> {
    const headers: Record<string, string> = {
      ...request.headers,
      authorization:
        options.auth === 'basic' ? `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}` : `Bearer ${options.apiKey}`,
      accept: 'application/json',
    };
    const bodyText = request.bodyText ?? (request.body === undefined ? undefined : JSON.stringify(request.body));
    if (bodyText !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey !== undefined) headers[options.idempotencyHeader ?? 'idempotency-key'] = request.idempotencyKey;
    injectTraceHeaders(headers);
    const tryDeadline = deadline(signal, perTryTimeoutMs);
    const trySignal = tryDeadline.signal;
    try {
      let res: TransportResponse;
      try {
        res = await doFetch(`${options.baseUrl()}${request.path}`, {
          method: request.method,
          headers,
          ...(bodyText === undefined ? {} : { body: bodyText }),
          signal: trySignal,
        });
      } catch (error) {
        const timedOut = trySignal.aborted;
        return {
          kind: 'unknown',
          code: timedOut ? 'timeout' : 'network_error',
          message: timedOut ? 'provider timed out' : redactSecrets(String((error as Error).message ?? error)),
        };
      }
      let text: string;
      try {
        text = await res.text();
      } catch {
        return { kind: 'unknown', code: trySignal.aborted ? 'timeout' : 'network_error', message: 'response body lost' };
      }
      let body: unknown;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        return { kind: 'unknown', code: 'bad_response', message: `status ${res.status}: body is not JSON` };
      }
      if (res.status >= 500 || res.status === 429) {
        return {
          kind: 'unknown',
          code: 'provider_error',
          message: `status ${res.status}: ${redactSecrets(text.slice(0, MAX_LOGGED_BODY_CHARS))}`,
        };
      }
      return { kind: 'response', status: res.status, body };
    } finally {
      tryDeadline.dispose();
    }
  }

  return {
    async send(request, signal) {
      const safeToRetry = request.method === 'GET' || request.idempotencyKey !== undefined || request.retrySafe === true;
      const tries = safeToRetry ? maxRetries + 1 : 1;
      let last: ProviderResponse = { kind: 'unknown', code: 'timeout', message: 'deadline passed before the call' };
      for (let attempt = 1; attempt <= tries && !signal.aborted; attempt += 1) {
        const started = Date.now();
        last = await traced(request, signal, attempt);
        const status = last.kind === 'response' ? last.status : undefined;
        log.debug(
          { method: request.method, path: request.path, attempt, status, outcome: last.kind, duration_ms: Date.now() - started },
          'provider call',
        );
        if (last.kind === 'response' && !RETRYABLE_STATUSES.has(last.status)) return last;
        if (last.kind === 'unknown' && last.code === 'bad_response') return last;
        if (attempt < tries && !signal.aborted) {
          log.warn(
            {
              method: request.method,
              path: request.path,
              attempt,
              reason: last.kind === 'unknown' ? `${last.code}: ${last.message}` : `status ${String(status)}`,
            },
            'provider call failed; retrying with the same idempotency key',
          );
          await pause(backoffMs * 2 ** (attempt - 1), signal);
        }
      }
      if (signal.aborted && last.kind === 'unknown') return { kind: 'unknown', code: 'timeout', message: 'provider timed out' };
      return last;
    },
  };
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** Waits, but never past the caller's deadline. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
