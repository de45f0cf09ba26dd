import { auth, type CreatedSample, createRequests, getRequests } from '../scenarios.ts';
import { type CpuGroups, perOperation, postgresPids, startCpuWindow } from './cpu.ts';
import { runLoad } from './load.ts';
import type { BenchStore } from './processes.ts';
import { type Alternated, NOISE_RATIO, type Row, row } from './report.ts';
import { round } from './stats.ts';

/**
 * The measurements the full run (bench/run.ts) and the history run (bench/history.ts) share: a
 * store's create ceiling, its GET ceiling, and the create and GET scenarios against its server.
 * Rows come back unjudged: each caller judges them by its own targets.
 */
export interface Windows {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  progress(message: string): void;
}

type Requests = Parameters<typeof runLoad>[0]['requests'];

/** A closed-loop window (as fast as answered) of `requests` against `url`. */
export const load = (w: Windows, url: string, requests: Requests, seconds = w.seconds, expect?: (s: number) => boolean) =>
  runLoad({ url, connections: w.connections, seconds, requests, ...(expect === undefined ? {} : { expect }) });

/**
 * Where a create's cycles go (issue 27): the server (all its threads), the providers' process, the
 * bare provider route's process, PostgreSQL's processes, and the load generator (this process).
 */
export function cpuGroups(store: BenchStore): { service: CpuGroups; ceiling: CpuGroups } {
  const postgres = store.kind === 'postgres' ? { postgres: postgresPids } : {};
  return {
    service: {
      server: () => [store.server.pid],
      ...(store.providers === undefined ? {} : { providers: () => [store.providers?.pid ?? 0] }),
      ...postgres,
    },
    ceiling: {
      ceiling: () => [store.ceiling.child.pid ?? 0],
      ...(store.providerEcho === undefined ? {} : { provider_echo: () => [store.providerEcho?.pid ?? 0] }),
      ...postgres,
    },
  };
}

/** The ceiling process's database ceiling: `connections` concurrent creates (or checkouts), no HTTP in. */
export async function measureDbCeiling(
  w: Windows,
  store: BenchStore,
  kind: 'create' | 'checkout',
  storeName: string = store.kind,
): Promise<{ row: Row; rps: number }> {
  const cpuWindow = startCpuWindow(cpuGroups(store).ceiling);
  const db = await store.ceiling.ask<{
    ops: number;
    seconds: number;
    errors: number;
    p50: number;
    p99: number;
    firstError?: string;
  }>(
    // A create's ceiling includes the least a provider round trip costs (provider-echo.ts).
    {
      type: 'db',
      kind,
      seconds: w.seconds,
      concurrency: w.connections,
      warmupSeconds: w.warmupSeconds,
      provider: kind === 'create',
    },
    'db',
    (w.seconds + w.warmupSeconds) * 1000 + 60_000,
  );
  // The CPU window spans the warm-up too (the ceiling process answers once, at the end); per
  // operation it is therefore an upper bound, comparable across runs of the same windows.
  const cpu = perOperation(cpuWindow.stop(), db.ops * ((w.seconds + w.warmupSeconds) / w.seconds));
  if (db.firstError !== undefined) w.progress(`${storeName}: DB ceiling (${kind}) errors: ${db.firstError}`);
  const rps = db.ops / db.seconds;
  const rowName = kind === 'create' ? 'ceiling_create' : 'ceiling_db_checkout';
  return {
    row: {
      ...row(rowName, storeName, 'ceiling', { rps, p50Ms: db.p50, p99Ms: db.p99, errors: db.errors }, null),
      cpu_ms_per_op: cpu,
    },
    rps,
  };
}

export interface Serving {
  url: string;
  paymentIds: string[];
  keys: string[];
}

/** The ceiling process's bare routes (after its create ceiling wrote the payments they read). */
export const serveCeiling = (store: BenchStore) => store.ceiling.ask<Serving>({ type: 'serve' }, 'serving', 30_000);

/** The GET ceiling: the bare route and one primary-key select, warmed up first. */
export async function measureGetCeiling(w: Windows, serving: Serving, storeName: string): Promise<{ row: Row; rps: number }> {
  const requests = getRequests({}, serving.paymentIds, '/ceiling/payment/');
  await load(w, serving.url, requests, w.warmupSeconds);
  const r = await load(w, serving.url, requests);
  return { row: row('ceiling_get', storeName, 'ceiling', r, null), rps: r.rps };
}

/**
 * POST /payment/create with unique idempotency keys, after a warm-up; `sample` collects created
 * payments (the GET scenario reads them). Judged against the create ceiling `ceilingRps`.
 */
export async function measureCreate(
  w: Windows,
  store: BenchStore,
  runId: string,
  storeName: string,
  sample: CreatedSample[],
  ceilingRps: number,
): Promise<Row> {
  const api = store.server.url;
  const key = store.merchant.sandboxKey;
  const created = (s: number) => s === 201;
  await load(w, api, createRequests(key, `${runId}-${storeName}-warm`, sample), w.warmupSeconds, created);
  const cpuWindow = startCpuWindow(cpuGroups(store).service);
  const create = await load(w, api, createRequests(key, `${runId}-${storeName}`, sample), w.seconds, created);
  const cpu = perOperation(cpuWindow.stop(), create.rps * w.seconds);
  if (sample.length === 0) {
    throw new Error(`${storeName}: the create scenario created nothing (${JSON.stringify(create.statusCounts)})`);
  }
  return { ...row('create', storeName, 'scenario', create, ceilingRps), cpu_ms_per_op: cpu };
}

/** GET /payment/{id} round-robin over the sampled payments, judged against the GET ceiling. */
export async function measureGet(
  w: Windows,
  store: BenchStore,
  storeName: string,
  sample: readonly CreatedSample[],
  ceilingRps: number,
): Promise<Row> {
  const requests = getRequests(
    auth(store.merchant.sandboxKey),
    sample.map((s) => s.id),
  );
  const get = await load(w, store.server.url, requests, w.seconds, (s) => s === 200);
  return row('get', storeName, 'scenario', get, ceilingRps);
}

/** What one window of a ceiling or of a scenario answered (a LoadResult, or the ceiling process's writes). */
type Window = (seconds: number) => Promise<{ rps: number }>;

/**
 * The ceiling rate a paced row takes half of: its one window's, unless the scenario was above that
 * by more than noise and measured again beside it (alternateIfAbove) — then the one window was not
 * a ceiling (a slow minute of the machine), and the mean of the alternated ceiling windows is.
 * Without this a depressed ceiling window offered the paced row a fraction of the service's
 * capacity (0.25–0.28 of what it answered unpaced, thirteenth session) and called that half.
 */
export function pacingCeilingRps(oneWindowRps: number, r: Row): number {
  const alternated = r.alternated?.ceiling_rps ?? [];
  return alternated.length === 0 ? oneWindowRps : alternated.reduce((sum, rps) => sum + rps, 0) / alternated.length;
}

/**
 * A scenario is judged against a ceiling measured in a window minutes before its own; on a machine
 * whose rates move tens of percent between runs (docs/benchmarks.md, issue 27's fifth session), one
 * window each says little about which is faster. A scenario above its ceiling by more than
 * NOISE_RATIO is measured again against it in alternated windows (ceiling, scenario, ceiling, …,
 * `rounds` of each, half a window long, CPU time per operation of both) and `ceiling_exceeded`
 * follows the alternated ratio of their summed operations: the flag then means the scenario beat
 * its ceiling side by side, not that the machine was faster in the later window.
 */
export async function alternateIfAbove(
  w: Windows,
  groups: { service: CpuGroups; ceiling: CpuGroups },
  r: Row,
  ceiling: Window,
  scenario: Window,
  rounds = 3,
): Promise<Row> {
  if (r.ceiling_exceeded !== true) return r;
  const seconds = w.seconds / 2;
  w.progress(
    `${r.store}: ${r.name} is ${r.ratio} of its ceiling in one window; ${rounds} alternated rounds of ${seconds} s each`,
  );
  const ceilingRps: number[] = [];
  const rps: number[] = [];
  const cpu = { ceiling: 0, ceilingOps: 0, service: 0, serviceOps: 0 };
  const busy = (spent: Record<string, number>) =>
    Object.entries(spent).reduce((sum, [name, ms]) => (name === 'load' ? sum : sum + ms), 0);
  for (let i = 0; i < rounds; i += 1) {
    let window = startCpuWindow(groups.ceiling);
    const c = await ceiling(seconds);
    cpu.ceiling += busy(window.stop());
    cpu.ceilingOps += c.rps * seconds;
    ceilingRps.push(round(c.rps, 1) ?? 0);
    window = startCpuWindow(groups.service);
    const s = await scenario(seconds);
    cpu.service += busy(window.stop());
    cpu.serviceOps += s.rps * seconds;
    rps.push(round(s.rps, 1) ?? 0);
  }
  const ratio = cpu.ceilingOps > 0 ? cpu.serviceOps / cpu.ceilingOps : 0;
  const alternated: Alternated = {
    rounds,
    seconds,
    ceiling_rps: ceilingRps,
    rps,
    ratio: round(ratio, 3) ?? 0,
    ceiling_cpu_ms_per_op: round(cpu.ceilingOps > 0 ? cpu.ceiling / cpu.ceilingOps : 0, 3) ?? 0,
    cpu_ms_per_op: round(cpu.serviceOps > 0 ? cpu.service / cpu.serviceOps : 0, 3) ?? 0,
  };
  const { ceiling_exceeded: _single, ...rest } = r;
  return { ...rest, alternated, ...(ratio > NOISE_RATIO ? { ceiling_exceeded: true } : {}) };
}
