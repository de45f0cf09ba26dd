import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { round } from './stats.ts';

/**
 * Where the cycles of a window go, by process, from /proc (issue 27: profile before changing):
 * user + system CPU time of each named group of processes (all their threads), read before and
 * after the window. The bench's own process (the load generator) is measured with
 * process.cpuUsage(). PostgreSQL is every process named `postgres` on the machine (backends,
 * writer, WAL writer, checkpointer): the bench runs on a quiet machine, where those are ours.
 */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** /proc/<pid>/stat from field 3 (the state) on: the command name before it may hold spaces. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // gone
  }
}

function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields === null ? 0 : ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** When a process started, in epoch ms to a clock tick (its start time after boot, field 22). */
export function processStartEpochMs(pid: number): number | null {
  const fields = statFields(pid);
  if (fields === null) return null;
  const uptimeSeconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
  return Date.now() - uptimeSeconds * 1000 + (Number(fields[19]) * 1000) / TICKS_PER_SECOND;
}

export function postgresPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'postgres') pids.push(Number(name));
    } catch {
      // exited while listed
    }
  }
  return pids;
}

export type CpuGroups = Record<string, () => number[]>;

export interface CpuWindow {
  /** CPU milliseconds per group (and `load`, the bench process) spent during the window. */
  stop(): Record<string, number>;
}

export function startCpuWindow(groups: CpuGroups): CpuWindow {
  const read = () =>
    Object.fromEntries(
      Object.entries(groups).map(([name, pids]) => [name, pids().reduce((sum, pid) => sum + processCpuMs(pid), 0)]),
    );
  const before = read();
  const ownBefore = process.cpuUsage();
  return {
    stop() {
      const after = read();
      const own = process.cpuUsage(ownBefore);
      const spent: Record<string, number> = {};
      for (const name of Object.keys(groups)) spent[name] = Math.max(0, (after[name] ?? 0) - (before[name] ?? 0));
      spent['load'] = (own.user + own.system) / 1000;
      return spent;
    },
  };
}

/** CPU milliseconds per operation, per group, rounded for the report. */
export function perOperation(spent: Record<string, number>, operations: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(spent).map(([name, ms]) => [name, operations > 0 ? (round(ms / operations, 3) ?? 0) : 0]),
  );
}
