import autocannon from 'autocannon';
import { runPacedLoad } from './paced-load.ts';
import { LatencyRecorder, windowSummary } from './stats.ts';

/**
 * One bounded load window with autocannon, from this process (not the server's) over loopback.
 * Latency is taken from autocannon's per-response hrtime (sub-millisecond), not its integer
 * histogram. Every response that is not the expected status counts as an error, as do socket
 * errors and timeouts.
 */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: autocannon.Request, context: Record<string, unknown>) => autocannon.Request;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  statusCounts: Record<string, number>;
}

export interface LoadOptions {
  /** Several URLs: autocannon spreads the connections over them (the scaling run's API processes). */
  url: string | string[];
  connections: number;
  seconds: number;
  requests: LoadRequest[];
  /** Statuses that count as success (default: any 2xx). */
  expect?: (status: number) => boolean;
  timeoutSeconds?: number;
  /**
   * Open loop: requests per second, evenly spaced (bench/lib/paced-load.ts, not autocannon's
   * per-second quota); default closed loop, as fast as answered.
   */
  rate?: number;
  /** Open loop only: each answer's due time (ms after the window opened) and latency in ms. */
  onSample?: (dueMs: number, latencyMs: number) => void;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  if (options.rate !== undefined) return runPacedLoad({ ...options, rate: options.rate });
  const expect = options.expect ?? ((s: number) => s >= 200 && s < 300);
  const latencies = new LatencyRecorder();
  let unexpected = 0;
  const statusCounts: Record<string, number> = {};
  const instance = autocannon({
    // autocannon accepts an array of URLs (lib/url.js); its type declaration says string only.
    url: options.url as string,
    connections: options.connections,
    pipelining: 1,
    duration: options.seconds,
    timeout: options.timeoutSeconds ?? 10,
    requests: options.requests as autocannon.Request[],
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
    latencies.record(responseTimeMs);
    statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
    if (!expect(statusCode)) unexpected += 1;
  });
  const result = await instance;
  return { ...windowSummary(latencies, result.duration), errors: unexpected + result.errors + result.timeouts, statusCounts };
}
