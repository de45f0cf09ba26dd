import { randomBytes } from 'node:crypto';
import { publishedContract } from '../../harness/checked-fetch.ts';
import type { Exchange } from '../../harness/response-contract.ts';

/**
 * A plain HTTP client for the reliability suite: every call has a timeout, and a network failure
 * (refused, reset, timed out) is a value, not an exception, because under faults it is expected.
 */
export interface ApiResponse {
  ok: true;
  status: number;
  headers: Headers;
  text: string;
  elapsedMs: number;
  json<T = Record<string, unknown>>(): T;
}

export interface NetworkFailure {
  ok: false;
  error: string;
  elapsedMs: number;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse | NetworkFailure> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined && options.key !== null) headers['authorization'] ??= `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const started = performance.now();
  let answer: ApiResponse;
  let received: Exchange;
  let sentPath = path;
  try {
    // What the server is asked is the URL after fetch's normalisation (`/pay/../select` is sent as
    // `/select`): the answer is checked against the route of that path, not of the one written.
    const target = new URL(`${baseUrl}${path}`);
    sentPath = `${target.pathname}${target.search}`;
    const response = await fetch(target, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    });
    const text = await response.text();
    const elapsedMs = performance.now() - started;
    received = {
      method,
      url: sentPath,
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body: text,
    };
    answer = {
      ok: true,
      status: response.status,
      headers: response.headers,
      text,
      elapsedMs,
      json: <T>() => JSON.parse(text) as T,
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const name = (error as Error).name;
    return {
      ok: false,
      error: name === 'TimeoutError' ? 'timeout' : (cause?.code ?? cause?.message ?? (error as Error).message),
      elapsedMs: performance.now() - started,
    };
  }
  // Outside the try: an undocumented answer fails the test, it is not a network failure.
  const problems = (await publishedContract(baseUrl)).check(received);
  if (problems.length > 0) throw new Error(`an answer the OpenAPI document does not describe:\n${problems.join('\n')}`);
  return answer;
}

let counter = 0;
/** A unique reference_no / idempotency key stem per call. */
export function uniqueRef(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}-${counter}`;
}

/** The published quick-start body. */
export function quickStartBody(referenceNo: string, amount = 150000.0): Record<string, unknown> {
  return { amount, currency: 'IDR', reference_no: referenceNo, email: 'payer@example.com' };
}

/** Waits until /readyz is 200 (bounded); returns how long it took. */
export async function waitReady(baseUrl: string, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await call(baseUrl, 'GET', '/readyz', { timeoutMs: 2_000 });
    if (res.ok && res.status === 200) return Date.now() - started;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`not ready within ${timeoutMs} ms: ${res.ok ? `${res.status} ${res.text}` : res.error}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
