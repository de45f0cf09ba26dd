import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../test/reliability/harness/processes.ts';
import { runLoad } from './lib/load.ts';
import { setupStore, type StoreKind } from './lib/processes.ts';
import { auth, type CreatedSample, createRequests, getRequests, replayRequests } from './scenarios.ts';

/**
 * Where the time of a create goes: the server runs with `--cpu-prof`, takes create load, stops
 * gracefully (so V8 writes the profile), and the profile's self time is summed per package /
 * source file and per function.
 */
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

function bucketOf(url: string, functionName: string): string {
  if (url === '') return functionName === '' ? '(anonymous native)' : functionName;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return (parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]) ?? url;
  }
  if (url.startsWith('node:')) return url;
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith(REPO_ROOT) ? relative(REPO_ROOT, path) : path;
}

/**
 * Sums self time per package/file and per function. `window` keeps only the samples taken between
 * `fromEndMs` and `toEndMs` before the profile's end (the load window; start-up is left out).
 */
export function summarizeProfile(file: string, window?: { fromEndMs: number; toEndMs: number }, top = 15): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const hitsById = new Map<number, number>();
  if (window !== undefined && profile.samples !== undefined && profile.timeDeltas !== undefined) {
    const from = profile.endTime - window.fromEndMs * 1000;
    const to = profile.endTime - window.toEndMs * 1000;
    let t = profile.startTime;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas?.[i] ?? 0;
      if (t >= from && t <= to) hitsById.set(id, (hitsById.get(id) ?? 0) + 1);
    });
  } else {
    for (const n of profile.nodes) hitsById.set(n.id, n.hitCount ?? 0);
  }
  const hitsOf = (n: ProfileNode) => hitsById.get(n.id) ?? 0;
  const totalHits = profile.nodes.reduce((s, n) => s + hitsOf(n), 0);
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((s, n) => s + hitsOf(n), 0);
  const busy = totalHits - idle;
  const byBucket = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const n of profile.nodes) {
    const hits = hitsOf(n);
    if (hits === 0 || n.callFrame.functionName === '(idle)') continue;
    const bucket = bucketOf(n.callFrame.url, n.callFrame.functionName);
    byBucket.set(bucket, (byBucket.get(bucket) ?? 0) + hits);
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${bucket}:${n.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + hits);
  }
  const pct = (h: number) => `${((100 * h) / Math.max(1, busy)).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, h]) => `  ${pct(h)}  ${k}`)
      .join('\n');
  const seconds = window === undefined ? (profile.endTime - profile.startTime) / 1e6 : (window.fromEndMs - window.toEndMs) / 1000;
  return [
    `${relative(REPO_ROOT, file)}: ${seconds.toFixed(1)} s of load profiled, busy ${((100 * busy) / Math.max(1, totalHits)).toFixed(1)} % of samples`,
    'self time by package / file (share of busy time):',
    list(byBucket),
    'top functions by self time:',
    list(byFunction),
  ].join('\n');
}

export type ProfiledScenario = 'create' | 'replay' | 'get';
export const PROFILED_SCENARIOS: readonly ProfiledScenario[] = ['create', 'replay', 'get'];

/**
 * Runs the scenarios one after the other against one profiled server per store (create first: the
 * others reuse what it created), then summarizes each scenario's load window of the profile apart.
 */
export async function runProfile(o: {
  stores: StoreKind[];
  scenarios: readonly ProfiledScenario[];
  seconds: number;
  connections: number;
  dir: string;
  progress: (m: string) => void;
}): Promise<void> {
  for (const kind of o.stores) {
    const profileDir = join(o.dir, kind);
    const store = await setupStore(kind, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`], {
      separateProviders: kind === 'postgres',
    });
    const windows: { scenario: ProfiledScenario; startMs: number; endMs: number }[] = [];
    let exitMs = 0;
    try {
      const key = store.merchant.sandboxKey;
      const sample: CreatedSample[] = [];
      const requestsOf = (scenario: ProfiledScenario) =>
        scenario === 'create'
          ? createRequests(key, `profile-${Date.now()}`, sample)
          : scenario === 'replay'
            ? replayRequests(key, sample)
            : getRequests(
                auth(key),
                sample.map((x) => x.id),
              );
      // The replay and GET scenarios need payments: create some first when create is not profiled.
      if (!o.scenarios.includes('create')) {
        await runLoad({ url: store.server.url, connections: o.connections, seconds: 3, requests: requestsOf('create') });
      }
      for (const scenario of ['create', 'replay', 'get'].filter((x) => o.scenarios.includes(x as ProfiledScenario))) {
        const name = scenario as ProfiledScenario;
        o.progress(`${kind}: ${name} load against a profiled server for ${o.seconds} s`);
        const startMs = Date.now();
        const r = await runLoad({
          url: store.server.url,
          connections: o.connections,
          seconds: o.seconds,
          requests: requestsOf(name),
          expect: (st) => st === (name === 'get' ? 200 : 201),
        });
        windows.push({ scenario: name, startMs, endMs: Date.now() });
        o.progress(`${kind}: ${name} ${Math.round(r.rps)} req/s, p99 ${r.p99Ms.toFixed(1)} ms, ${r.errors} errors`);
      }
      const exit = await store.server.terminate();
      if (exit.code !== 0) throw new Error(`profiled server exited ${JSON.stringify(exit)}`);
      exitMs = Date.now();
    } finally {
      await store.cleanup();
    }
    // One profile per thread: the main thread's, the embedded database's worker thread (decision
    // 0020) when it runs, and a small one of tsx's loader threads. The two largest are summarized.
    const files = readdirSync(profileDir).filter((f) => f.endsWith('.cpuprofile'));
    const largest = files.sort((a, b) => statSync(join(profileDir, b)).size - statSync(join(profileDir, a)).size);
    for (const f of largest.slice(0, 2)) {
      for (const w of windows) {
        // The profile ends when the process exits; each load window is measured back from there.
        const summary = summarizeProfile(join(profileDir, f), { fromEndMs: exitMs - w.startMs, toEndMs: exitMs - w.endMs });
        console.log(`\n== ${kind}: ${w.scenario}\n${summary}`);
        writeFileSync(join(profileDir, `${f}.${w.scenario}.summary.txt`), `${summary}\n`);
      }
    }
  }
}
