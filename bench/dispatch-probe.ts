import { createWebhookTestbed } from '../test/harness/webhook-testbed.ts';

/**
 * The dispatcher alone, for development: queue EVENTS events for ENDPOINTS endpoints on a loopback
 * receiver, start the dispatcher loop and time the drain. Prints deliveries/s, the dispatcher
 * process's CPU per delivery (steadier than rates on a busy machine) and the mean time of each
 * kind of query. Runs on the test store (TEST_STORE=postgres with DATABASE_URL for PostgreSQL);
 * ANALYZE=1 vacuums and analyses the deliveries table first (statistics present, as in steady
 * operation).
 *
 *   node --import tsx bench/dispatch-probe.ts
 *   TEST_STORE=postgres DATABASE_URL=postgres://postgres@127.0.0.1:5432/test EVENTS=1500 node --import tsx bench/dispatch-probe.ts
 */
const events = Number(process.env['EVENTS'] ?? 1000);
const endpoints = Number(process.env['ENDPOINTS'] ?? 8);
const w = await createWebhookTestbed({ concurrency: 32, perTargetConcurrency: 4 });
w.receiver.respond = () => ({ status: 204 });
for (let i = 0; i < endpoints; i += 1) await w.createEndpoint({ url: w.receiver.url(`/e${i}`) });
for (let i = 0; i < events; i += 1) await w.emit('payment.succeeded');
const total = events * endpoints;
const store = w.t.testStore.store;
if (process.env['ANALYZE'] === '1') {
  await w.dispatcher.runOnce();
  await store.exec('VACUUM (ANALYZE) webhook_deliveries');
}

const stats = new Map<string, { n: number; ms: number }>();
const note = (k: string, ms: number) => {
  const s = stats.get(k) ?? { n: 0, ms: 0 };
  s.n += 1;
  s.ms += ms;
  stats.set(k, s);
};
const query = store.query.bind(store);
const transaction = store.transaction.bind(store);
Object.assign(store, {
  query: async (text: string, params?: readonly unknown[]) => {
    const t = performance.now();
    try {
      return await query(text, params);
    } finally {
      note(text.replace(/\s+/g, ' ').slice(0, 50), performance.now() - t);
    }
  },
  transaction: async <T>(fn: Parameters<typeof transaction<T>>[0]) => {
    const t = performance.now();
    try {
      return await transaction(fn);
    } finally {
      note('(transaction)', performance.now() - t);
    }
  },
});

const cpu0 = process.cpuUsage();
const t0 = performance.now();
w.dispatcher.start();
for (;;) {
  const [r] = await query<{ n: bigint }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'");
  if (Number(r?.n ?? 0) >= total) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    store: store.kind,
    deliveries: total,
    seconds: Number(seconds.toFixed(2)),
    per_second: Math.round(total / seconds),
    cpu_us_per_delivery: Math.round((cpu.user + cpu.system) / total),
  }),
);
for (const [k, v] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(`${String(v.n).padStart(6)} × ${(v.ms / v.n).toFixed(2).padStart(6)} ms  ${k}`);
}
await w.close();
