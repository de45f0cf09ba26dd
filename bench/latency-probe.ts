import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { perOperation, postgresPids, processStartEpochMs, startCpuWindow } from './lib/cpu.ts';
import { runLoad } from './lib/load.ts';
import { runPacedLoadOnOwnThread } from './lib/paced-thread.ts';
import { setupStore, settleAfterWrites, type StoreKind } from './lib/processes.ts';
import { formatMaintenance, formatPacedTail } from './lib/report.ts';
import { formatClusters, pacedTail, type Sample, serverCollectionsIn, serverMaintenanceIn, slowClusters } from './lib/tail.ts';
import { auth, type CreatedSample, createRequests, getRequests } from './scenarios.ts';

/**
 * A development aid (not a scenario of `npm run bench`): offers creates at a stated rate, evenly
 * paced, to a fresh server and prints when the slowest answers were due, so that a tail can be
 * matched with what the server was doing then (a job's period, a checkpoint, a collection).
 *   node --import tsx bench/latency-probe.ts --store postgres --rate 300 --seconds 20
 * (--scenario get: GETs at --rate over the payments that 5 s of creates at --create-rate, by default
 * --rate, made.)
 * With --node-arg=--trace-gc it places the server's collections on the window's clock; with
 * --node-arg=--trace-gc-nvp it says what the server's scavenges promoted per request; --server-output
 * FILE keeps the tail of the server's output (its last 64 KB) for reading beside the clusters.
 */
const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'postgres' },
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '20' },
    env: { type: 'string', multiple: true, default: [] },
    'node-arg': { type: 'string', multiple: true, default: [] },
    scenario: { type: 'string', default: 'create' },
    // The warm-up's creates (which make the GET scenario's payments): 5 s at this rate, by default
    // --rate. On a slow machine a GET rate is far above what creates can do, and the warm-up then
    // overloads the server before the window; give the GET scenario a create rate it can keep up with.
    'create-rate': { type: 'string' },
    'server-output': { type: 'string' },
  },
});
// The generator's process must not collect on its own schedule: V8's memory reducer, ~8 s after a
// thread goes idle, started a collection that put a cluster of slow answers into the window every
// time (docs/benchmarks.md, eighteenth session). `npm run bench` runs with the flag; so should this.
if (!process.execArgv.includes('--no-memory-reducer')) {
  console.error(
    'note: run as `node --no-memory-reducer --import tsx bench/latency-probe.ts …`, or the window measures this process too',
  );
}
const env = Object.fromEntries(values.env.map((kv) => kv.split('=', 2) as [string, string]));
const store = await setupStore(values.store as StoreKind, values['node-arg'], {
  separateProviders: values.store === 'postgres',
  serverEnv: env,
});
try {
  const sample: CreatedSample[] = [];
  const creates = createRequests(store.merchant.sandboxKey, `probe-${Date.now()}`, sample);
  const createRate = Number(values['create-rate'] ?? values.rate);
  await runLoad({ url: store.server.url, connections: 32, seconds: 5, requests: creates, rate: createRate });
  await settleAfterWrites(store.target);
  const requests =
    values.scenario === 'get'
      ? getRequests(
          auth(store.merchant.sandboxKey),
          sample.map((c) => c.id),
        )
      : creates;
  const samples: Sample[] = [];
  // Where the cycles of the window went: at a fixed offered rate, the server's CPU per request
  // compares two builds more steadily than a closed-loop rate on a noisy machine.
  const providers = store.providers;
  const cpu = startCpuWindow({
    server: () => [store.server.pid],
    ...(providers === undefined ? {} : { providers: () => [providers.pid] }),
    ...(values.store === 'postgres' ? { postgres: postgresPids } : {}),
  });
  // Paced from a thread of its own, as the bench's paced rows are (paced-thread.ts): paced from this
  // process's thread, the generator's own collections (about once a second at 3,800 GETs/s) were
  // the start of every periodic slow cluster (docs/benchmarks.md, eighteenth session). The GET
  // scenario warms up for 3 s at the window's rate on that thread first.
  const warmupSeconds = values.scenario === 'get' ? 3 : 0;
  const seconds = Number(values.seconds);
  const paced = await runPacedLoadOnOwnThread({
    url: store.server.url,
    connections: 32,
    seconds,
    requests,
    rate: Number(values.rate),
    warmupSeconds,
    onSample: (due, ms) => samples.push({ due, ms }),
  });
  // The CPU window spans the warm-up too: its figures are per request of both.
  const spent = cpu.stop();
  const windowStartEpoch = paced.windowStartEpochMs;
  const sorted = [...samples].sort((a, b) => a.ms - b.ms);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]?.ms.toFixed(1);
  const metrics = await (await fetch(`${store.server.url}/metrics`)).text();
  console.log(
    metrics
      .split('\n')
      .filter((l) => /^nodejs_eventloop_lag_(max|p99|p50)_seconds/.test(l))
      .join('; '),
  );
  console.log(`server output ${store.server.output().length} bytes`);
  if (values['server-output'] !== undefined) writeFileSync(values['server-output'], store.server.output());
  console.log(
    'cpu ms per request:',
    Object.entries(perOperation(spent, Math.round((samples.length * (seconds + warmupSeconds)) / seconds)))
      .map(([name, ms]) => `${name} ${ms}`)
      .join(', '),
  );
  console.log(
    `${samples.length} ${values.scenario} at ${values.rate}/s: p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} max ${q(0.9999)} ms`,
  );
  // The generator's collections and lateness, as the bench's paced rows report them.
  console.log(formatPacedTail(pacedTail(samples, Number(q(0.99)), paced)));
  if (values['node-arg'].includes('--trace-gc')) {
    // On the window's clock: --trace-gc stamps ms since the server's start, which /proc gives.
    const started = processStartEpochMs(store.server.pid);
    if (started !== null) {
      const onWindow = serverCollectionsIn(store.server.output(), started, windowStartEpoch, seconds);
      console.log(
        `server collections in the window: ${onWindow.filter((g) => g.kind === 'Scavenge').length} scavenges; Mark-Compact or >= 5 ms at s:`,
        onWindow
          .filter((g) => g.kind === 'Mark-Compact' || g.ms >= 5)
          .map((g) => `${g.at.toFixed(2)}:${g.ms.toFixed(1)} (${g.kind} ${g.thread})`)
          .join(' '),
      );
    }
  }
  if (values['node-arg'].includes('--trace-gc-nvp')) {
    // What the server's young collections promoted in the window (decision 0028): bytes that
    // outlived two scavenges, per request. The server's output is a bounded tail, so this counts
    // the window's scavenges still in it and the requests due between the first and the last.
    const started = processStartEpochMs(store.server.pid);
    const byIsolate = new Map<string, { at: number; promoted: number }[]>();
    const lines =
      started === null
        ? []
        : store.server.output().matchAll(/\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: [^\n]*?gc=s [^\n]*? promoted=(\d+)/g);
    for (const m of lines) {
      const at = ((started ?? 0) + Number(m[2]) - windowStartEpoch) / 1000;
      if (at < 0 || at > Number(values.seconds)) continue;
      const list = byIsolate.get(m[1] as string) ?? [];
      list.push({ at, promoted: Number(m[3]) });
      byIsolate.set(m[1] as string, list);
    }
    // One line per isolate: the main thread's, and on the embedded store the database thread's
    // (and tsx's loader thread, which barely allocates). The main thread's isolate is the one whose
    // address is not in the 0x7f… mapping range that threads' isolates get.
    for (const [isolate, list] of [...byIsolate].sort((a, b) => b[1].length - a[1].length)) {
      const first = list[0];
      const last = list.at(-1);
      if (first === undefined || last === undefined || last.at <= first.at) continue;
      const promoted = list.slice(1).reduce((sum, g) => sum + g.promoted, 0);
      const requests = (last.at - first.at) * Number(values.rate);
      console.log(
        `server isolate ${isolate}: ${list.length} scavenges in the window (in the output's tail); promoted ${(promoted / (list.length - 1) / 1024).toFixed(0)} KB per scavenge, ${(promoted / requests).toFixed(0)} bytes per request`,
      );
    }
  }
  if (values.store === 'embedded') {
    console.log(
      'server maintenance statements in the window:',
      formatMaintenance(serverMaintenanceIn(store.server.output(), windowStartEpoch, seconds)),
    );
  }
  // The slowest 1 % as clusters (answers due within 50 ms of the previous slow one): a stall and its backlog.
  console.log(
    'slowest 1 % as clusters (due from-to s, answers, max ms):',
    formatClusters(slowClusters(samples, Number(q(0.99)))),
  );
} finally {
  await store.cleanup();
}
