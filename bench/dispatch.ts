import { registerEndpoint, startWebhookReceiver, startWorkerIfNeeded } from '../test/reliability/harness/webhooks.ts';
import { BENCH_ENV, type BenchStore } from './lib/processes.ts';
import { runLoad } from './lib/load.ts';
import { LatencyRecorder } from './lib/stats.ts';
import { createRequests } from './scenarios.ts';

/**
 * Webhook dispatch: deliveries/s and event-to-delivery latency to a loopback receiver.
 *
 * Issue 4 builds the dispatcher. Until `src/jobs/dispatcher*` exists this scenario is skipped with
 * a "not yet available" line (never a number). It is written against the fixed interface of
 * product.md (`POST /webhook_endpoint/create`, Standard Webhooks headers, the event body's
 * `created_at`) and issue 4 (`npx tributary worker` on PostgreSQL), so it runs once that lands;
 * its first real run is the check that it fits.
 */
export interface DispatchResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  ceilingRps: number;
  note: string;
}

export async function runDispatch(store: BenchStore, seconds: number, connections: number): Promise<DispatchResult> {
  const receiver = await startWebhookReceiver();
  const worker = startWorkerIfNeeded(store.target, store.secret, BENCH_ENV);
  try {
    // The receiver's own ceiling: how fast it takes event-sized POSTs from a plain client.
    const ceiling = await runLoad({
      url: receiver.url,
      connections,
      seconds,
      requests: [{ method: 'POST', path: '/', body: JSON.stringify({ type: 'ceiling', pad: 'x'.repeat(1500) }) }],
    });
    await registerEndpoint(store.server.url, store.merchant.sandboxKey, receiver.url);
    const loadStartMs = Date.now();
    const load = await runLoad({
      url: store.server.url,
      connections,
      seconds,
      requests: createRequests(store.merchant.sandboxKey, `dispatch-${loadStartMs}`, [], 0),
    });
    const expected = load.requests - load.errors;
    const deadline = Date.now() + (seconds + 15) * 1000;
    const ours = () =>
      receiver.deliveries
        .map((d) => ({ id: d.webhookId, receivedMs: d.receivedMs, createdMs: Date.parse(d.event.created_at ?? '') }))
        .filter((d) => d.createdMs >= loadStartMs);
    while (new Set(ours().map((d) => d.id)).size < expected && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const delivered = ours();
    const unique = new Set(delivered.map((d) => d.id)).size;
    const latencies = new LatencyRecorder();
    for (const d of delivered) latencies.record(d.receivedMs - d.createdMs);
    const lastMs = Math.max(loadStartMs + 1, ...delivered.map((d) => d.receivedMs));
    const summary = latencies.summary();
    return {
      rps: unique / ((lastMs - loadStartMs) / 1000),
      p50Ms: summary.p50,
      p99Ms: summary.p99,
      errors: Math.max(0, expected - unique),
      ceilingRps: ceiling.rps,
      note: `${unique} of ${expected} events delivered (${delivered.length - unique} duplicates); rate is limited by the create rate`,
    };
  } finally {
    worker?.kill('SIGTERM');
    await receiver.close();
  }
}
