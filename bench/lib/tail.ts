import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import type { PacedTail } from './report.ts';
import { round } from './stats.ts';
import { MAINTENANCE_PASS_MESSAGE } from '../../src/jobs/embedded-maintenance.ts';

/**
 * Where an open-loop window's tail came from: the slowest answers grouped into clusters by when
 * they were due (a stall of the service and its backlog form one cluster; scattered slow answers
 * form many small ones), and the load generator's own collections, which delay every request due
 * meanwhile and are counted against the server. Used by the latency probe and the paced rows of
 * `npm run bench`, so that a missed p99 says when and whose.
 */
export interface Sample {
  /** ms after the window opened that the request was due. */
  due: number;
  ms: number;
}

export interface Cluster {
  /** Due times of its first and last answer, ms after the window opened. */
  from: number;
  to: number;
  answers: number;
  maxMs: number;
}

/** Answers slower than `aboveMs`, grouped: one due within `gapMs` of the previous joins its cluster. */
export function slowClusters(samples: readonly Sample[], aboveMs: number, gapMs = 50): Cluster[] {
  const slow = samples.filter((s) => s.ms > aboveMs).sort((a, b) => a.due - b.due);
  const clusters: Cluster[] = [];
  for (const s of slow) {
    const last = clusters.at(-1);
    if (last !== undefined && s.due - last.to <= gapMs) {
      last.to = s.due;
      last.answers += 1;
      last.maxMs = Math.max(last.maxMs, s.ms);
    } else clusters.push({ from: s.due, to: s.due, answers: 1, maxMs: s.ms });
  }
  return clusters;
}

/** "from-to s answers max ms" per cluster, as the probe and the bench print them. */
export function formatClusters(clusters: readonly Cluster[]): string {
  return clusters
    .map((c) => `${(c.from / 1000).toFixed(2)}-${(c.to / 1000).toFixed(2)} ${c.answers} ${c.maxMs.toFixed(0)}`)
    .join('; ');
}

export interface Collection {
  /** ms after the watch started. */
  at: number;
  ms: number;
}

/** This process's garbage collections from now until `stop()`. */
export function watchOwnGc(): { stop(): Collection[] } {
  const start = performance.now();
  const seen: Collection[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) seen.push({ at: e.startTime - start, ms: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      observer.disconnect();
      return seen;
    },
  };
}

/**
 * The machine's TCP retransmission timeouts so far (Linux `TcpExt: TCPTimeouts`; null elsewhere).
 * On loopback a timeout means a segment or its acknowledgement was not handled for at least the
 * minimum RTO (200 ms): every request on that connection waits for it.
 */
export function tcpTimeouts(): number | null {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('TcpExt:'));
    const names = lines[at]?.split(' ') ?? [];
    const values = lines[at + 1]?.split(' ') ?? [];
    const i = names.indexOf('TCPTimeouts');
    return at < 0 || i < 0 || values[i] === undefined ? null : Number(values[i]);
  } catch {
    return null;
  }
}

/** What held the generator or the connections in a window, beside its answers. */
export interface WindowWitnesses {
  ownGc: readonly Collection[];
  /** The generator's loop late by LATE_MS or more (paced-load.ts onLate): `at` ms into the window. */
  late: readonly Collection[];
  /** TCP retransmission timeouts on the machine during the window (null: not known). */
  tcpTimeouts: number | null;
  /** The embedded server's maintenance statements that ran during the window (serverMaintenanceIn). */
  serverMaintenance?: [number, number, string][];
  /** The server's collections in the window, where it ran with `--trace-gc` (serverCollectionsIn). */
  serverGc?: readonly ServerCollection[];
  /** When the window opened (epoch ms): to place the tail beside other clocks (PostgreSQL's log, a sampler). */
  windowStartEpochMs?: number;
}

/**
 * The embedded server's maintenance statements (its log lines, src/jobs/embedded-maintenance.ts)
 * that ran during a window, as [at s, ms, what] (at < 0: it began before the window and was still
 * running when the window opened): PGlite answers nothing else while one runs,
 * so a cluster of slow answers due then is the statement's. A pass's line is written when the pass
 * ends, so a pass still running when the output is read is not listed yet.
 */
export function serverMaintenanceIn(
  serverOutput: string,
  windowStartEpochMs: number,
  seconds: number,
): [number, number, string][] {
  const found: [number, number, string][] = [];
  for (const line of serverOutput.split('\n')) {
    if (!line.includes(MAINTENANCE_PASS_MESSAGE)) continue;
    let entry: { msg?: unknown; maintenance?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // a line cut by the output's bounded tail
    }
    if (entry.msg !== MAINTENANCE_PASS_MESSAGE || !Array.isArray(entry.maintenance)) continue;
    for (const s of entry.maintenance as { what: string; started_at: number; ms: number }[]) {
      const at = (s.started_at - windowStartEpochMs) / 1000;
      // Running at any moment of the window: one that began before it and held PGlite into it counts.
      if (at <= seconds && at + s.ms / 1000 >= 0) found.push([round(at) ?? 0, round(s.ms, 1) ?? 0, s.what]);
    }
  }
  return found.sort((a, b) => a[0] - b[0]);
}

/** One collection of the server's, from its `--trace-gc` output, on a window's clock. */
export interface ServerCollection {
  kind: 'Scavenge' | 'Mark-Compact';
  /** Seconds after the window opened. */
  at: number;
  /** Its pause, ms. */
  ms: number;
  /** Whose: the main thread's isolate, or another thread's (the embedded store's database thread). */
  thread: 'main' | 'other';
}

/**
 * The server's collections (its `--trace-gc` lines, which stamp ms since the process started) from
 * a window's opening to its end; [] when the output has none. A thread's isolate lives in the
 * 0x7f… mapping range; the main thread's does not. A Mark-Compact or a long scavenge of the main
 * thread holds every request meanwhile.
 */
export function serverCollectionsIn(
  serverOutput: string,
  serverStartEpochMs: number,
  windowStartEpochMs: number,
  seconds: number,
): ServerCollection[] {
  const found: ServerCollection[] = [];
  for (const m of serverOutput.matchAll(
    /\[\d+:(0x[0-9a-f]+)\]\s+(\d+) ms: (Mark-Compact|Scavenge)[^\n]*? MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/g,
  )) {
    const at = (serverStartEpochMs + Number(m[2]) - windowStartEpochMs) / 1000;
    if (at < 0 || at > seconds) continue;
    found.push({
      kind: m[3] as ServerCollection['kind'],
      at,
      ms: Number(m[4]),
      thread: (m[1] as string).startsWith('0x7f') ? 'other' : 'main',
    });
  }
  return found;
}

/** A collection or a lateness as the tail lists it: [at s, ms]. */
const atSecondsMs = (c: Collection): [number, number] => [round(c.at / 1000) ?? 0, round(c.ms, 1) ?? 0];

/**
 * A paced row's tail: its slowest 1 % (answers above its p99) as clusters, the generator's GC and
 * lateness, and the machine's TCP timeouts in the window.
 */
export function pacedTail(samples: readonly Sample[], p99Ms: number, w: WindowWitnesses, largest = 3): PacedTail {
  const { ownGc } = w;
  const clusters = slowClusters(samples, p99Ms);
  const top = [...clusters]
    .sort((a, b) => b.answers - a.answers)
    .slice(0, largest)
    .sort((a, b) => a.from - b.from);
  return {
    ...(w.windowStartEpochMs === undefined ? {} : { opened_at: new Date(w.windowStartEpochMs).toISOString() }),
    clusters: clusters.length,
    largest: top.map((c) => ({
      from_s: round(c.from / 1000) ?? 0,
      to_s: round(c.to / 1000) ?? 0,
      answers: c.answers,
      max_ms: round(c.maxMs, 1) ?? 0,
    })),
    load_gc: {
      collections: ownGc.length,
      total_ms:
        round(
          ownGc.reduce((sum, g) => sum + g.ms, 0),
          1,
        ) ?? 0,
      max_ms: round(Math.max(0, ...ownGc.map((g) => g.ms)), 1) ?? 0,
      long: ownGc.filter((g) => g.ms >= 5).map(atSecondsMs),
    },
    load_late: {
      times: w.late.length,
      max_ms: round(Math.max(0, ...w.late.map((l) => l.ms)), 1) ?? 0,
      // The longest few, in window order.
      long: [...w.late]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .sort((a, b) => a.at - b.at)
        .map(atSecondsMs),
    },
    tcp_timeouts: w.tcpTimeouts,
    ...(w.serverMaintenance === undefined ? {} : { server_maintenance: w.serverMaintenance }),
    ...(w.serverGc === undefined || w.serverGc.length === 0
      ? {}
      : {
          server_gc: {
            scavenges: w.serverGc.filter((g) => g.kind === 'Scavenge').length,
            // Every Mark-Compact and every pause of 5 ms or more, as [at s, ms, kind and thread].
            long: w.serverGc
              .filter((g) => g.kind === 'Mark-Compact' || g.ms >= 5)
              .map((g): [number, number, string] => [round(g.at) ?? 0, round(g.ms, 1) ?? 0, `${g.kind} ${g.thread}`]),
          },
        }),
  };
}
