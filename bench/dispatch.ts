import { registerEndpoint, startWebhookReceiver, startWorkerIfNeeded } from '../test/reliability/harness/webhooks.ts';
import { BENCH_ENV, type BenchStore } from './lib/processes.ts';
import { runLoad } from './lib/load.ts';
import { LatencyRecorder } from './lib/stats.ts';
import { createRequests } from './scenarios.ts';

/**
 * Webhook dispatch: deliveries/s and event-to-delivery latency to a loopback receiver.
 *
 * The merchant has `endpoints` webhook endpoints on one loopback receiver (each its own path), so
 * every payment.pending event of the create load fans out into that many deliveries: the offered
 * delivery rate is the create rate times `endpoints`. One endpoint alone is bounded by design by
 * WEBHOOK_CONCURRENCY_PER_ENDPOINT (4) sends in flight, i.e. by the receiver's round trip; several
 * endpoints (or merchants) are what a dispatcher serves at scale. A delivery counts once per
 * (endpoint, event); latency is from the event's `created_at` to its arrival at the receiver.
 */
export interface DispatchResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  ceilingRps: number;
  note: string;
}

export async function runDispatch(
  store: BenchStore,
  seconds: number,
  connections: number,
  endpoints: number,
  /** How long to wait after the load for the backlog to arrive; what has not arrived by then counts as errors. */
  drainSeconds = seconds + 15,
): Promise<DispatchResult> {
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
    for (let i = 0; i < endpoints; i += 1) {
      await registerEndpoint(store.server.url, store.merchant.sandboxKey, receiver.url, `/hook/${i}`);
    }
    const loadStartMs = Date.now();
    const load = await runLoad({
      url: store.server.url,
      connections,
      seconds,
      requests: createRequests(store.merchant.sandboxKey, `dispatch-${loadStartMs}`, [], 0),
    });
    const expected = (load.requests - load.errors) * endpoints;
    const deadline = Date.now() + drainSeconds * 1000;
    const ours = () =>
      receiver.deliveries
        .map((d) => ({
          id: `${d.path} ${d.webhookId}`,
          receivedMs: d.receivedMs,
          createdMs: Date.parse(d.event.created_at ?? ''),
        }))
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
      note:
        `${unique} of ${expected} deliveries (${endpoints} endpoints × ${load.requests - load.errors} events) arrived ` +
        `(${delivered.length - unique} duplicates); the offered rate is the create rate × ${endpoints}`,
    };
  } finally {
    worker?.kill('SIGTERM');
    await receiver.close();
  }
}
