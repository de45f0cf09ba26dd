import http from 'node:http';
import type autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './load.ts';
import { LatencyRecorder, windowSummary } from './stats.ts';

/**
 * An open-loop load at a stated rate with evenly spaced arrivals: request i is due at
 * start + i / rate, and goes out then whether or not earlier ones were answered (at most
 * `connections` on the wire; the rest wait for a socket, and that wait counts in their latency,
 * which runs from the request's due time, not from when a socket was free — no coordinated
 * omission).
 *
 * Not autocannon's `overallRate`: that one lets each connection send its quota for the second
 * as fast as answers come back, then pause until the next second, so "150 requests/s" arrives as
 * a burst of 150 at the top of every second (seen in the dispatch scenario: the fan-out found
 * nothing for ~800 ms, then ~90 events at once). A latency target at a stated rate means the rate
 * spread over the second.
 */
export async function runPacedLoad(options: LoadOptions & { rate: number }): Promise<LoadResult> {
  const expect = options.expect ?? ((s: number) => s >= 200 && s < 300);
  const base = new URL(Array.isArray(options.url) ? (options.url[0] ?? '') : options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const latencies = new LatencyRecorder();
  const statusCounts: Record<string, number> = {};
  let unexpected = 0;
  let failed = 0;
  const inFlight = new Set<Promise<void>>();
  const intervalMs = 1000 / options.rate;
  const startMs = performance.now();
  const endMs = startMs + options.seconds * 1000;
  let issued = 0;
  let template = 0;

  const send = (dueMs: number): Promise<void> => {
    const spec = options.requests[template++ % options.requests.length];
    if (spec === undefined) throw new Error('runPacedLoad: no requests');
    const context: Record<string, unknown> = {};
    const request = (spec.setupRequest?.({ ...spec } as autocannon.Request, context) ?? spec) as {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    };
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    return new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: request.method ?? spec.method,
          path: request.path ?? spec.path,
          agent,
          headers: { ...(request.headers ?? {}), ...(body === undefined ? {} : { 'content-length': String(body.length) }) },
          timeout: (options.timeoutSeconds ?? 10) * 1000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const latencyMs = performance.now() - dueMs;
            latencies.record(latencyMs);
            options.onSample?.(dueMs - startMs, latencyMs);
            statusCounts[status] = (statusCounts[status] ?? 0) + 1;
            if (!expect(status)) unexpected += 1;
            spec.onResponse?.(status, Buffer.concat(chunks).toString('utf8'), context);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        failed += 1;
        resolve();
      });
      req.end(body);
    });
  };

  const dueMs = () => startMs + issued * intervalMs;
  while (dueMs() < endMs) {
    // Everything due by now goes out now (a late timer sends the backlog at once, on schedule).
    for (const now = performance.now(); dueMs() <= now && dueMs() < endMs; issued += 1) {
      const p = send(dueMs()).finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(dueMs(), endMs) - performance.now())));
  }
  await Promise.all([...inFlight]);
  agent.destroy();
  return { ...windowSummary(latencies, options.seconds), errors: unexpected + failed, statusCounts };
}
