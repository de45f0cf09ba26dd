import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { call } from '../test/reliability/harness/api-client.ts';
import { REPO_ROOT, serverEnv } from '../test/reliability/harness/processes.ts';
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
export function dispatcherUnavailable(): string | undefined {
  const jobs = join(REPO_ROOT, 'src/jobs');
  const found = existsSync(jobs) && readdirSync(jobs).some((f) => f.startsWith('dispatcher'));
  return found ? undefined : 'not yet available: src/jobs/dispatcher* does not exist (webhook dispatch lands with issue 4)';
}

interface Receiver {
  url: string;
  deliveries: { receivedMs: number; createdMs: number; id: string }[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const deliveries: Receiver['deliveries'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const receivedMs = Date.now();
      try {
        const event = JSON.parse(Buffer.concat(chunks).toString()) as { created_at?: string };
        const id = request.headers['webhook-id'];
        if (typeof id === 'string' && typeof event.created_at === 'string') {
          deliveries.push({ receivedMs, createdMs: Date.parse(event.created_at), id });
        }
      } catch {
        // the ceiling run posts non-event bodies; only events are counted
      }
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface DispatchResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  ceilingRps: number;
  note: string;
}

export async function runDispatch(store: BenchStore, seconds: number, connections: number): Promise<DispatchResult> {
  const receiver = await startReceiver();
  const worker =
    store.kind === 'postgres' && readFileSync(join(REPO_ROOT, 'src/cli/main.ts'), 'utf8').includes("'worker'")
      ? spawn(process.execPath, ['bin/tributary.js', 'worker'], {
          cwd: REPO_ROOT,
          env: serverEnv(store.target, store.secret, BENCH_ENV),
          stdio: 'ignore',
        })
      : undefined;
  try {
    // The receiver's own ceiling: how fast it takes event-sized POSTs from a plain client.
    const ceiling = await runLoad({
      url: receiver.url,
      connections,
      seconds,
      requests: [{ method: 'POST', path: '/', body: JSON.stringify({ type: 'ceiling', pad: 'x'.repeat(1500) }) }],
    });
    const endpoint = await call(store.server.url, 'POST', '/webhook_endpoint/create', {
      key: store.merchant.sandboxKey,
      body: { url: `${receiver.url}/hook`, description: 'bench receiver' },
    });
    if (!endpoint.ok || endpoint.status >= 300) {
      throw new Error(
        `registering the webhook endpoint failed: ${endpoint.ok ? `${endpoint.status} ${endpoint.text}` : endpoint.error}`,
      );
    }
    const loadStartMs = Date.now();
    const load = await runLoad({
      url: store.server.url,
      connections,
      seconds,
      requests: createRequests(store.merchant.sandboxKey, `dispatch-${loadStartMs}`, [], 0),
    });
    const expected = load.requests - load.errors;
    const deadline = Date.now() + (seconds + 15) * 1000;
    const ours = () => receiver.deliveries.filter((d) => d.createdMs >= loadStartMs);
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
