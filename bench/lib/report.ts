import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { round } from './stats.ts';

/** serverMaintenanceIn's statements as the bench and the probe print them: `at s: s:ms (what) …`, or `none`. */
export function formatMaintenance(statements: readonly [number, number, string][]): string {
  return statements.length === 0 ? 'none' : 'at s: ' + statements.map(([at, ms, what]) => `${at}:${ms} (${what})`).join(' ');
}

/** One line of the results: a ceiling or a scenario, with its ratio to the ceiling it is judged by. */
export interface Row {
  name: string;
  store: string;
  kind: 'ceiling' | 'scenario';
  rps: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  errors: number;
  ceiling_rps: number | null;
  ratio: number | null;
  /** The issue 6 target for this row, in words, and whether this run met it. */
  target?: string;
  target_met?: boolean;
  note?: string;
  /** Open-loop rows: the rate offered (evenly paced); rps is what was answered. */
  offered_rps?: number;
  /** Open-loop rows: the offered rate over what the service answered unpaced (closed loop) in the same run. */
  offered_of_unpaced?: number;
  /**
   * Open-loop rows: where the slowest 1 % came from (bench/lib/tail.ts) — how many clusters, the
   * largest few by answers (due times in s after the window opened), and the load generator's own
   * collections in the window, whose pauses count against the server.
   */
  tail?: PacedTail;
  /** CPU milliseconds per operation by process group during the window (bench/lib/cpu.ts). */
  cpu_ms_per_op?: Record<string, number>;
  /**
   * The scenario did more than its ceiling by more than noise (NOISE_RATIO): the ceiling is not one.
   * After an alternated re-measurement (`alternated`), judged by its ratio instead of one window each.
   */
  ceiling_exceeded?: boolean;
  /** A scenario above its ceiling in one window, measured again beside it (measure.ts alternateIfAbove). */
  alternated?: Alternated;
}

export interface PacedTail {
  /** When the window opened (ISO time), to place its clusters on other clocks. */
  opened_at?: string;
  clusters: number;
  largest: { from_s: number; to_s: number; answers: number; max_ms: number }[];
  /** The generator's collections in the window; `long` lists those of 5 ms or more as [at s, ms]. */
  load_gc: { collections: number; total_ms: number; max_ms: number; long: [number, number][] };
  /** The generator's loop late by 5 ms or more: how often, the most, and the longest five as [at s, ms]. */
  load_late: { times: number; max_ms: number; long: [number, number][] };
  /** TCP retransmission timeouts on the machine during the window (null: not known on this OS). */
  tcp_timeouts: number | null;
  /** The embedded server's maintenance statements that started in the window, as [at s, ms, what]. */
  server_maintenance?: [number, number, string][];
  /** With `--server-node-arg=--trace-gc`: the server's scavenges in the window, and its long pauses as [at s, ms, what]. */
  server_gc?: { scavenges: number; long: [number, number, string][] };
}

/** Alternated windows of a ceiling and its scenario: what each answered, in order, and their ratio. */
export interface Alternated {
  rounds: number;
  seconds: number;
  ceiling_rps: number[];
  rps: number[];
  /** Operations of the scenario's windows over the ceiling's, summed over the rounds. */
  ratio: number;
  /** CPU ms per operation of the ceiling's processes and of the service's (load generator excluded). */
  ceiling_cpu_ms_per_op: number;
  cpu_ms_per_op: number;
}

/** A scenario above its ceiling by more than this is reported as exceeding it (run-to-run noise). */
export const NOISE_RATIO = 1.1;

export interface Skipped {
  name: string;
  store: string;
  reason: string;
}

export function row(
  name: string,
  store: string,
  kind: Row['kind'],
  m: { rps: number; p50Ms: number; p99Ms: number; errors: number },
  ceilingRps: number | null,
): Row {
  return {
    name,
    store,
    kind,
    rps: round(m.rps, 1),
    p50_ms: round(m.p50Ms, 2),
    p99_ms: round(m.p99Ms, 2),
    errors: m.errors,
    ceiling_rps: ceilingRps === null ? null : round(ceilingRps, 1),
    ratio: ceilingRps === null || ceilingRps <= 0 ? null : round(m.rps / ceilingRps, 3),
    ...(ceilingRps !== null && ceilingRps > 0 && m.rps / ceilingRps > NOISE_RATIO ? { ceiling_exceeded: true } : {}),
  };
}

export function machine() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout
  }
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_gb: round(totalmem() / 2 ** 30, 1),
    load_average: loadavg().map((l) => round(l, 2)),
    commit,
  };
}

const pad = (value: unknown, width: number) => String(value ?? '-').padStart(width);

/** `[at s, ms]` pairs as the tail lines print them: "at:ms at:ms". */
function atMs(pairs: readonly [number, number][]): string {
  return pairs.map(([at, ms]) => `${at}:${ms}`).join(' ');
}

/** A paced row's tail as the bench (and the latency probe) print it. */
export function formatPacedTail(t: PacedTail): string {
  const largest = t.largest.map((c) => `${c.from_s}-${c.to_s} s ${c.answers} answers max ${c.max_ms} ms`).join('; ');
  return `${t.opened_at === undefined ? '' : `window opened ${t.opened_at}; `}slowest 1 % in ${t.clusters} clusters, largest ${largest}; load generator GC ${t.load_gc.collections} x, ${t.load_gc.total_ms} ms, max ${t.load_gc.max_ms} ms${t.load_gc.long.length === 0 ? '' : `, >= 5 ms at s: ${atMs(t.load_gc.long)}`}; load generator late >= 5 ms ${t.load_late.times} x, max ${t.load_late.max_ms} ms${t.load_late.long.length === 0 ? '' : ` (at s: ${atMs(t.load_late.long)})`}${t.tcp_timeouts === null ? '' : `; TCP timeouts ${t.tcp_timeouts}`}${t.server_maintenance === undefined ? '' : `; server maintenance ${formatMaintenance(t.server_maintenance)}`}${t.server_gc === undefined ? '' : `; server GC ${t.server_gc.scavenges} scavenges, Mark-Compact or >= 5 ms: ${formatMaintenance(t.server_gc.long)}`}`;
}

export function printTable(rows: readonly Row[], skipped: readonly Skipped[]): void {
  // As wide as the longest store name (the history run's `postgres_empty`), at least 9.
  const storeWidth = Math.max(9, ...rows.map((r) => r.store.length), ...skipped.map((s) => s.store.length));
  const header = `${'scenario'.padEnd(20)} ${'store'.padEnd(storeWidth)} ${pad('req/s', 9)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('errors', 7)} ${pad('ceiling', 9)} ${pad('ratio', 6)}  target`;
  console.log(header);
  console.log('-'.repeat(header.length + 12));
  for (const r of rows) {
    const target = r.target === undefined ? '' : `${r.target_met ? 'met' : 'MISSED'} (${r.target})`;
    console.log(
      `${r.name.padEnd(20)} ${r.store.padEnd(storeWidth)} ${pad(r.rps, 9)} ${pad(r.p50_ms, 8)} ${pad(r.p99_ms, 8)} ${pad(r.errors, 7)} ${pad(r.ceiling_rps, 9)} ${pad(r.ratio, 6)}  ${target}`,
    );
  }
  for (const s of skipped) console.log(`${s.name.padEnd(20)} ${s.store.padEnd(storeWidth)} skipped: ${s.reason}`);
  for (const r of rows) {
    const a = r.alternated;
    const side =
      a === undefined
        ? ''
        : ` alternated ${a.rounds} x ${a.seconds} s: ceiling ${a.ceiling_rps.join('/')}/s at ${a.ceiling_cpu_ms_per_op} cpu ms/op, ` +
          `scenario ${a.rps.join('/')}/s at ${a.cpu_ms_per_op} cpu ms/op, ratio ${a.ratio};`;
    if (r.ceiling_exceeded === true) {
      console.log(
        `! ${r.name} (${r.store}) exceeds its ceiling by more than noise (ratio ${r.ratio};${side}): that ceiling is not one`,
      );
    } else if (a !== undefined) {
      console.log(`  ${r.name} (${r.store}) was ${r.ratio} of its ceiling in one window;${side} within noise`);
    }
  }
  for (const r of rows) {
    if (r.offered_rps === undefined || r.offered_of_unpaced === undefined) continue;
    console.log(
      `${r.name} (${r.store}): offered ${r.offered_rps}/s, ${r.offered_of_unpaced} of what the service answered unpaced in this run`,
    );
  }
  for (const r of rows) if (r.tail !== undefined) console.log(`${r.name} (${r.store}): ${formatPacedTail(r.tail)}`);
  for (const r of rows) {
    if (r.cpu_ms_per_op === undefined) continue;
    const parts = Object.entries(r.cpu_ms_per_op).map(([name, ms]) => `${name} ${ms}`);
    console.log(`cpu ms per operation, ${r.name} (${r.store}): ${parts.join(', ')}`);
  }
}

/** Writes a result file formatted as the repository's prettier check expects. */
export async function writeJson(path: string, value: unknown): Promise<void> {
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(JSON.stringify(value), { ...options, filepath: path }));
}
