import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/reliability/harness/processes.ts';
import { runLoad } from './lib/load.ts';
import { machine, writeJson } from './lib/report.ts';
import { type BenchStore, setupStore, type StoreKind } from './lib/processes.ts';
import { quantile, round } from './lib/stats.ts';
import { type CreatedSample, createRequests, mixedRequests } from './scenarios.ts';

/**
 * The soak: mixed 80/20 load on every selected store at once for `seconds` (10 minutes by
 * default), the server's resident memory sampled from /proc every 5 s. The sandbox providers run
 * as their own process (their memory is sampled and reported, not judged: a simulated provider
 * keeps its charges). Memory is "flat" when the
 * median of the last quarter is within 10 % (and 32 MiB) of the median of the first quarter after
 * a warm-up fifth; the least-squares slope after warm-up is reported too. Writes
 * bench/soak-latest.json.
 */
const SAMPLE_EVERY_MS = 5_000;
const SLICE_SECONDS = 10;

function rssMiB(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? undefined : Number(match[1]) / 1024;
  } catch {
    return undefined;
  }
}

function slopePerMinute(points: readonly { t: number; v: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mt = points.reduce((s, p) => s + p.t, 0) / n;
  const mv = points.reduce((s, p) => s + p.v, 0) / n;
  const num = points.reduce((s, p) => s + (p.t - mt) * (p.v - mv), 0);
  const den = points.reduce((s, p) => s + (p.t - mt) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 60;
}

export function memoryVerdict(samples: readonly { t: number; v: number }[]) {
  const afterWarmup = samples.slice(Math.floor(samples.length / 5));
  const quarter = Math.max(1, Math.floor(afterWarmup.length / 4));
  const median = (xs: readonly { v: number }[]) =>
    quantile(
      [...xs.map((x) => x.v)].sort((a, b) => a - b),
      0.5,
    );
  const first = median(afterWarmup.slice(0, quarter));
  const last = median(afterWarmup.slice(-quarter));
  const growth = last - first;
  return {
    first_quarter_mib: round(first, 1),
    last_quarter_mib: round(last, 1),
    growth_mib: round(growth, 1),
    slope_mib_per_min: round(slopePerMinute(afterWarmup), 2),
    flat: growth <= Math.max(32, first * 0.1),
  };
}

export async function runSoak(o: {
  stores: StoreKind[];
  seconds: number;
  connections: number;
  progress: (m: string) => void;
  serverNodeArgs: string[];
}): Promise<void> {
  const setups: BenchStore[] = await Promise.all(
    o.stores.map((s) => setupStore(s, o.serverNodeArgs, { separateProviders: true })),
  );
  const perStore = Math.max(1, Math.floor(o.connections / setups.length));
  const samples = new Map<string, { t: number; v: number }[]>(setups.map((s) => [s.kind, []]));
  const providerSamples = new Map<string, { t: number; v: number }[]>(setups.map((s) => [s.kind, []]));
  const started = Date.now();
  const sampler = setInterval(() => {
    for (const s of setups) {
      const v = rssMiB(s.server.pid);
      if (v !== undefined) samples.get(s.kind)?.push({ t: (Date.now() - started) / 1000, v });
      const p = s.providers === undefined ? undefined : rssMiB(s.providers.pid);
      if (p !== undefined) providerSamples.get(s.kind)?.push({ t: (Date.now() - started) / 1000, v: p });
    }
  }, SAMPLE_EVERY_MS);
  const totals = new Map<string, { requests: number; errors: number }>();
  try {
    await Promise.all(
      setups.map(async (s) => {
        const sample: CreatedSample[] = [];
        await runLoad({
          url: s.server.url,
          connections: perStore,
          seconds: 2,
          requests: createRequests(s.merchant.sandboxKey, `soak-seed-${started}`, sample),
        });
        const total = { requests: 0, errors: 0 };
        totals.set(s.kind, total);
        const deadline = started + o.seconds * 1000;
        for (let slice = 0; Date.now() < deadline && slice < 100_000; slice += 1) {
          const r = await runLoad({
            url: s.server.url,
            connections: perStore,
            seconds: Math.min(SLICE_SECONDS, Math.max(1, Math.ceil((deadline - Date.now()) / 1000))),
            requests: mixedRequests(s.merchant.sandboxKey, `soak-${started}-${slice}`, sample),
            expect: (st) => st === 200 || st === 201,
          });
          total.requests += r.requests;
          total.errors += r.errors;
          if (slice % 6 === 0) {
            const last = samples.get(s.kind)?.at(-1);
            o.progress(
              `soak ${s.kind}: ${Math.round((Date.now() - started) / 1000)} s, ${Math.round(r.rps)} req/s, rss ${last === undefined ? '?' : last.v.toFixed(0)} MiB`,
            );
          }
        }
      }),
    );
  } finally {
    clearInterval(sampler);
    await Promise.all(setups.map((s) => s.cleanup()));
  }
  const result = {
    machine: machine(),
    seconds: o.seconds,
    connections: o.connections,
    server_node_args: o.serverNodeArgs,
    stores: setups.map((s) => ({
      store: s.kind,
      requests: totals.get(s.kind)?.requests ?? 0,
      errors: totals.get(s.kind)?.errors ?? 0,
      memory: memoryVerdict(samples.get(s.kind) ?? []),
      rss_samples_mib: (samples.get(s.kind) ?? []).map((p) => [Math.round(p.t), round(p.v, 1)]),
      // Informational: the simulated providers keep every charge they made (bounded), see docs.
      sandbox_providers_memory: memoryVerdict(providerSamples.get(s.kind) ?? []),
    })),
  };
  for (const s of result.stores) {
    console.log(
      `soak ${s.store}: ${s.requests} requests, ${s.errors} errors; RSS ${s.memory.first_quarter_mib} → ${s.memory.last_quarter_mib} MiB ` +
        `(slope ${s.memory.slope_mib_per_min} MiB/min): ${s.memory.flat ? 'flat' : 'NOT flat'}; ` +
        `sandbox providers (own process) ${s.sandbox_providers_memory.first_quarter_mib} → ${s.sandbox_providers_memory.last_quarter_mib} MiB`,
    );
  }
  await writeJson(join(REPO_ROOT, 'bench/soak-latest.json'), result);
  console.log('wrote bench/soak-latest.json');
}
