import { auth, type CreatedSample, createRequests, getRequests } from '../scenarios.ts';
import { type CpuGroups, perOperation, postgresPids, startCpuWindow } from './cpu.ts';
import { runLoad } from './load.ts';
import type { BenchStore } from './processes.ts';
import { type Row, row } from './report.ts';

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
