import {
  type Delivery,
  registerEndpoint,
  startWebhookReceiver,
  startWorkerIfNeeded,
  type WebhookReceiver,
} from '../test/reliability/harness/webhooks.ts';
import { BENCH_ENV, type BenchStore } from './lib/processes.ts';
import { type LoadResult, runLoad } from './lib/load.ts';
import { LatencyRecorder } from './lib/stats.ts';
import { perOperation, startCpuWindow } from './lib/cpu.ts';
import { cpuGroups } from './lib/measure.ts';
import { createRequests } from './scenarios.ts';
import { adminQuery } from '../test/reliability/harness/databases.ts';

/** Where an event's time goes, from the database's own timestamps (PostgreSQL): p50/p99 ms per stage. */
async function stageLatencies(url: string, sinceMs: number): Promise<string> {
  const r = await adminQuery(
    url,
    `WITH s AS (
       SELECT extract(epoch FROM d.created_at - e.created_at) * 1000 AS fan,
              extract(epoch FROM a.attempted_at - d.created_at) * 1000 AS claim,
              a.duration_ms AS wire
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt_number = 1
       WHERE e.created_at >= to_timestamp($1::double precision / 1000))
     SELECT percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY fan) AS fan,
            percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY claim) AS claim,
            percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY wire) AS wire,
            (SELECT count(*) FROM events WHERE created_at >= to_timestamp($1::double precision / 1000))::int AS events,
            (SELECT count(*) FROM webhook_deliveries WHERE status <> 'succeeded')::int AS unfinished FROM s`,
    [sinceMs],
  );
  const row = r.rows[0] as
    { fan: number[] | null; claim: number[] | null; wire: number[] | null; events: number; unfinished: number } | undefined;
  const fmt = (v: number[] | null | undefined) => (v == null ? '?' : v.map((x) => Math.round(x)).join('/'));
  return (
    `; p50/p99 ms event→fan-out ${fmt(row?.fan)}, fan-out→send ${fmt(row?.claim)}, send→answer ${fmt(row?.wire)}; ` +
    `the database holds ${row?.events} events of the window, ${row?.unfinished} deliveries not succeeded`
  );
}

/** A delivery of the window, read once from the receiver's list. */
interface Arrival {
  webhookId: string;
  receivedMs: number;
  createdMs: number;
}

/**
 * Waits until every event of a load (created at or after `sinceMs`) has reached every endpoint
 * and nothing new arrived for a second, or `drainSeconds` passed. Creates still in flight when the
 * window closed are not in the load's count but made events, so that count is only a lower
 * bound: events seen at the receiver count too. Each delivery is parsed once, as it is first
 * seen (the bench process shares the cores with the dispatchers it is waiting for).
 */
async function awaitArrivals(
  receiver: WebhookReceiver,
  sinceMs: number,
  load: LoadResult,
  endpoints: number,
  drainSeconds: number,
): Promise<{ list: Arrival[]; unique: () => number; expected: () => number; earlier: number }> {
  const list: Arrival[] = [];
  // Deliveries of events created before the window that arrived during it: they share the
  // dispatcher with the window's (a backlog left by the warm-up, or events of earlier scenarios).
  let earlier = 0;
  const ids = new Set<string>();
  const events = new Set<string>();
  let read = 0;
  const catchUp = () => {
    for (; read < receiver.deliveries.length; read += 1) {
      const d = receiver.deliveries[read] as Delivery;
      const createdMs = Date.parse(d.event.created_at ?? '');
      if (!(createdMs >= sinceMs)) {
        if (d.receivedMs >= sinceMs) earlier += 1;
        continue;
      }
      list.push({ webhookId: d.webhookId, receivedMs: d.receivedMs, createdMs });
      ids.add(`${d.path} ${d.webhookId}`);
      events.add(d.webhookId);
    }
  };
  const expected = () => Math.max(load.requests - load.errors, events.size) * endpoints;
  const deadline = Date.now() + drainSeconds * 1000;
  for (;;) {
    catchUp();
    const lastArrivalMs = receiver.deliveries.at(-1)?.receivedMs ?? 0;
    if ((ids.size >= expected() && Date.now() - lastArrivalMs >= 1_000) || Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { list, unique: () => ids.size, expected, earlier };
}

/**
 * Webhook dispatch: deliveries/s and event-to-delivery latency to a loopback receiver.
 *
 * The merchant has `endpoints` webhook endpoints on one loopback receiver (each its own path), so
 * every payment.pending event of the create load fans out into that many deliveries. The create
 * load is paced (open loop) so that it offers `offeredPerSecond` deliveries/s: a latency figure
 * means something only at a stated offered rate (a closed-loop create load offers whatever the
 * creates reach, above what the dispatcher can take on the same cores, and its p99 then measures
 * how long the backlog grew during the window). Without a rate the creates run as fast as they are
 * answered, as before. One endpoint alone is bounded by design by WEBHOOK_CONCURRENCY_PER_ENDPOINT
 * (4) sends in flight per process, i.e. by the receiver's round trip; several endpoints (or
 * merchants) are what a dispatcher serves at scale. A delivery counts once per (endpoint, event);
 * latency is from the event's `created_at` to its arrival at the receiver. On PostgreSQL the
 * database's timestamps split it into event → fan-out and fan-out → send.
 */
export interface DispatchResult {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  ceilingRps: number;
  note: string;
  /** With `kneeRates`: each stepped rate's figures, up to the first that missed p99 < 1 s or lost deliveries. */
  steps?: DispatchStep[];
  /**
   * CPU ms per delivery that arrived, by process group, from the window's start to its last
   * arrival: the creates at the offered rate are in it too, and they are the same on both sides
   * of a before/after comparison, so this moves with what a delivery costs, however busy the
   * machine's neighbours are (the rate at the edge does not).
   */
  cpuMsPerDelivery: Record<string, number>;
}

export interface DispatchStep {
  offered: number;
  rps: number;
  p99Ms: number;
  missing: number;
}

/** The knee: the highest offered rate whose deliveries all arrived with p99 under this. */
export const KNEE_P99_MS = 1000;
/** Each step of the knee lasts at most this long (a step past the knee then drains in bounded time). */
const KNEE_STEP_SECONDS = 10;

export async function runDispatch(
  store: BenchStore,
  seconds: number,
  connections: number,
  endpoints: number,
  /** How long to wait after the load for the backlog to arrive; what has not arrived by then counts as errors. */
  drainSeconds = seconds + 15,
  /** Offered deliveries/s: the create load is paced at this ÷ endpoints; undefined = creates as fast as answered. */
  offeredPerSecond?: number,
  /** The same load, unmeasured, before the window (its deliveries arrive before the window opens). */
  warmupSeconds = 0,
  /**
   * After the window: offered rates stepped up in this order, `seconds` each (at most
   * KNEE_STEP_SECONDS), stopping at the first
   * that misses p99 < KNEE_P99_MS or loses a delivery (beyond the knee the backlog, and with it the
   * latency, grows for as long as the load lasts).
   */
  kneeRates: readonly number[] = [],
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
    const groups = cpuGroups(store).service;
    if (worker !== undefined) groups['worker'] = () => [worker.pid ?? 0];
    const offer = async (runSeconds: number, tag: string, rate: number | undefined) => {
      const sinceMs = Date.now();
      const cpu = startCpuWindow(groups);
      const load = await runLoad({
        url: store.server.url,
        connections,
        seconds: runSeconds,
        requests: createRequests(store.merchant.sandboxKey, tag, [], 0),
        ...(rate === undefined ? {} : { rate: Math.ceil(rate / endpoints) }),
      });
      const arrived = await awaitArrivals(receiver, sinceMs, load, endpoints, drainSeconds);
      const spent = cpu.stop();
      const latencies = new LatencyRecorder();
      for (const d of arrived.list) latencies.record(d.receivedMs - d.createdMs);
      const lastMs = Math.max(sinceMs + 1, ...arrived.list.map((d) => d.receivedMs));
      const unique = arrived.unique();
      return {
        sinceMs,
        load,
        unique,
        expected: arrived.expected(),
        duplicates: arrived.list.length - unique,
        earlier: arrived.earlier,
        rps: unique / ((lastMs - sinceMs) / 1000),
        cpuMsPerDelivery: perOperation(spent, unique + arrived.earlier),
        ...latencies.summary(),
      };
    };
    // As every other scenario has: the same load first, unmeasured, so that the window does not
    // measure the dispatch path's first seconds (cold code, a queue table with no statistics yet).
    // Its deliveries arrive before the window opens.
    if (warmupSeconds > 0) await offer(warmupSeconds, `dispatch-warm-${Date.now()}`, offeredPerSecond);
    const w = await offer(seconds, `dispatch-${Date.now()}`, offeredPerSecond);
    const stages = store.target.kind === 'postgres' ? await stageLatencies(store.target.url, w.sinceMs) : '';
    const steps: DispatchStep[] = [];
    for (const rate of kneeRates) {
      const s = await offer(Math.min(seconds, KNEE_STEP_SECONDS), `dispatch-knee-${rate}-${Date.now()}`, rate);
      steps.push({
        offered: rate,
        rps: Math.round(s.rps),
        p99Ms: Math.round(s.p99),
        missing: Math.max(0, s.expected - s.unique),
      });
      if (!(s.p99 < KNEE_P99_MS) || s.expected > s.unique) break;
    }
    return {
      rps: w.rps,
      p50Ms: w.p50,
      p99Ms: w.p99,
      errors: Math.max(0, w.expected - w.unique),
      ceilingRps: ceiling.rps,
      ...(kneeRates.length === 0 ? {} : { steps }),
      cpuMsPerDelivery: w.cpuMsPerDelivery,
      note:
        `${w.unique} of ${w.expected} deliveries (${endpoints} endpoints × ${w.expected / endpoints} events; creates answered ${JSON.stringify(w.load.statusCounts)}) arrived ` +
        `(${w.duplicates} duplicates; ${w.earlier} deliveries of events created before the window — the warm-up's or earlier scenarios' — arrived meanwhile); ${offeredPerSecond === undefined ? `offered: the create rate × ${endpoints}` : `offered ${offeredPerSecond}/s (${Math.ceil(offeredPerSecond / endpoints)} creates/s × ${endpoints})`}${stages}`,
    };
  } finally {
    worker?.kill('SIGTERM');
    await receiver.close();
  }
}
