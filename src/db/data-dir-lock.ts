import { spawnSync } from 'node:child_process';
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process per embedded data directory (decision 0021). PGlite does not lock its directory, and
 * two processes writing one PostgreSQL data directory corrupt it, so the second one is refused with a
 * clear error.
 *
 * The lock is a kernel file lock: flock(2) on `DATA_DIR/tributary.lock`, held by an open file
 * description of this process. The kernel drops it when the last descriptor closes, which happens
 * when the process exits in any way, before it even becomes a zombie; so a crashed holder never
 * keeps the directory, whatever its pid does afterwards, and two starts racing for the directory end
 * with exactly one holder. Node has no flock binding, so util-linux's `flock` command takes the lock
 * on a descriptor this process passes to it: the lock belongs to the open file description, which
 * stays open here after the command exits.
 *
 * The file also names its holder (pid, start time, owner, whether it is stopping), only to explain a
 * refusal and to wait for a holder that is on its way out: a live holder that is serving is refused
 * at once; one shutting down (SIGTERM drain) or being killed is waited for, boundedly.
 *
 * Where the `flock` command does not exist (not Linux), the fallback is the older pid file created
 * with O_EXCL, taken over when its holder is dead. It cannot tell a reused pid from its holder
 * without /proc, and two starts taking over one stale file at the same instant can both win; the
 * decision record says so.
 */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export interface DataDirLock {
  release(): void;
}

export interface LockOptions {
  /** How long to wait for a holder that is shutting down (its drain is bounded at 15 s). */
  stoppingWaitMs?: number;
  /** How long to wait for a holder being killed, or one that has not said who it is yet. */
  dyingWaitMs?: number;
  /** Tests only: force the fallback. */
  mechanism?: 'flock' | 'pidfile';
}

const LOCK_FILE = 'tributary.lock';
const POLL_MS = 25;
const FLOCK_CONFLICT = 75;

/** What a holder wrote about itself. */
export interface HolderInfo {
  pid: number;
  owner: string;
  started_at: string;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), when known. */
  start_ticks?: string;
  stopping?: boolean;
}

/** running: refuse now; stopping, dying, unknown: wait (boundedly); gone: the file is stale. */
export type HolderState = 'running' | 'stopping' | 'dying' | 'gone' | 'unknown';

interface ProcessStat {
  state: string;
  startTicks: string;
}

/** State and start time of a process from /proc, or undefined when it does not exist (or no /proc). */
export function readProcessStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTicks = fields[19];
  if (state === undefined || startTicks === undefined) return undefined;
  return { state, startTicks };
}

/** True when SIGKILL is pending for the process: it is being killed and will release its files. */
function killPending(pid: number): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return false;
  }
  const SIGKILL_BIT = 1n << 8n;
  return [...text.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => (BigInt(`0x${m[1]}`) & SIGKILL_BIT) !== 0n);
}

const hasProc = () => readProcessStat(process.pid) !== undefined;

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Judges the holder a lock file names. With /proc: a missing process, a zombie ('Z') or dead ('X')
 * one, or a live process with another start time (the pid was reused) is gone; SIGKILL pending is
 * dying. Without /proc only "can it be signalled" is known.
 */
export function holderState(info: HolderInfo | undefined): HolderState {
  if (info === undefined) return 'unknown';
  if (!hasProc()) return signalable(info.pid) ? (info.stopping === true ? 'stopping' : 'running') : 'gone';
  const stat = readProcessStat(info.pid);
  if (stat === undefined || stat.state === 'Z' || stat.state === 'X') return 'gone';
  if (info.start_ticks !== undefined && info.start_ticks !== stat.startTicks) return 'gone';
  if (killPending(info.pid)) return 'dying';
  return info.stopping === true ? 'stopping' : 'running';
}

function readHolder(path: string): HolderInfo | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<HolderInfo>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return undefined;
    return {
      pid: parsed.pid,
      owner: typeof parsed.owner === 'string' ? parsed.owner : 'unknown',
      started_at: typeof parsed.started_at === 'string' ? parsed.started_at : '',
      ...(typeof parsed.start_ticks === 'string' ? { start_ticks: parsed.start_ticks } : {}),
      ...(parsed.stopping === true ? { stopping: true } : {}),
    };
  } catch {
    return undefined;
  }
}

function selfInfo(owner: string): HolderInfo {
  const ticks = readProcessStat(process.pid)?.startTicks;
  return {
    pid: process.pid,
    owner,
    started_at: new Date().toISOString(),
    ...(ticks === undefined ? {} : { start_ticks: ticks }),
  };
}

function inUse(dataDir: string, holder: HolderInfo): DataDirInUseError {
  return new DataDirInUseError(
    `The data directory ${dataDir} is in use by another Tributary process (pid ${holder.pid}, ${holder.owner}). ` +
      `Stop it first, or point DATA_DIR elsewhere.`,
  );
}

/** Every lock this process holds, so a shutdown can say "stopping" in each (markDataDirsStopping). */
const held = new Set<{ markStopping(): void }>();

/** Called when a graceful shutdown begins: a start meanwhile waits for us instead of failing. */
export function markDataDirsStopping(): void {
  for (const lock of held) lock.markStopping();
}

type Attempt = { ok: true; lock: DataDirLock } | { ok: false; holder: HolderInfo | undefined };

/** One non-blocking try of the kernel lock, or `undefined` when there is no `flock` command. */
function tryFlock(path: string, owner: string): Attempt | undefined {
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  const result = spawnSync('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(FLOCK_CONFLICT), '3'], {
    stdio: ['ignore', 'ignore', 'pipe', fd],
  });
  if (result.status !== 0) closeSync(fd);
  if (result.error !== undefined && (result.error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  if (result.status === FLOCK_CONFLICT) return { ok: false, holder: readHolder(path) };
  if (result.status !== 0) {
    throw new Error(`flock ${path} failed (${result.error?.message ?? `exit ${result.status}`}): ${String(result.stderr)}`);
  }
  const info = selfInfo(owner);
  rewriteHolder(fd, info);
  return holdLock({
    markStopping: () => rewriteHolder(fd, { ...info, stopping: true }),
    // The file stays: unlinking a locked file lets a later start lock a new inode while a racing
    // one locks the old. Closing the last descriptor is what releases the lock.
    release: () => closeSync(fd),
  });
}

/** Replaces the holder's description in the lock file (the descriptor is ours). */
function rewriteHolder(fd: number, info: HolderInfo): void {
  const text = Buffer.from(JSON.stringify(info));
  ftruncateSync(fd, 0);
  writeSync(fd, text, 0, text.length, 0);
}

/** A held lock: released once, and marked stopping by markDataDirsStopping until then. */
function holdLock(hooks: { markStopping(): void; release(): void }): Attempt {
  let released = false;
  const entry = {
    markStopping() {
      if (!released) hooks.markStopping();
    },
  };
  held.add(entry);
  return {
    ok: true,
    lock: {
      release() {
        if (released) return;
        released = true;
        held.delete(entry);
        hooks.release();
      },
    },
  };
}

/** The fallback without a `flock` command: an O_EXCL pid file, taken over when its holder is gone. */
function tryPidFile(path: string, owner: string): Attempt {
  try {
    const fd = openSync(path, 'wx', 0o600);
    const info = selfInfo(owner);
    rewriteHolder(fd, info);
    closeSync(fd);
    return holdLock({
      markStopping: () => markPidFileStopping(path, info),
      release: () => {
        try {
          unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = readHolder(path);
  if (holder === undefined || holderState(holder) === 'gone') {
    try {
      unlinkSync(path);
    } catch {
      // Someone else removed it first; the next try decides.
    }
  }
  return { ok: false, holder };
}

function markPidFileStopping(path: string, info: HolderInfo): void {
  try {
    const fd = openSync(path, constants.O_WRONLY);
    rewriteHolder(fd, { ...info, stopping: true });
    closeSync(fd);
  } catch {
    // The lock file went away: there is nothing left to mark.
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Takes the directory's lock for this process. A live holder that is serving is refused at once
 * with `DataDirInUseError`; a holder that is shutting down, being killed, or has not written who
 * it is yet is waited for (at most `stoppingWaitMs` / `dyingWaitMs`), then refused.
 */
export async function lockDataDir(dataDir: string, owner: string, options: LockOptions = {}): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const stoppingWaitMs = options.stoppingWaitMs ?? 20_000;
  const dyingWaitMs = options.dyingWaitMs ?? 5_000;
  let mechanism = options.mechanism ?? 'flock';
  const startedMs = Date.now();
  for (;;) {
    let attempt = mechanism === 'flock' ? tryFlock(path, owner) : tryPidFile(path, owner);
    if (attempt === undefined) {
      mechanism = 'pidfile';
      attempt = tryPidFile(path, owner);
    }
    if (attempt.ok) return attempt.lock;
    const holder = attempt.holder;
    const state = holder?.pid === process.pid ? 'running' : holderState(holder);
    const waitedMs = Date.now() - startedMs;
    if (state === 'running' && holder !== undefined) throw inUse(dataDir, holder);
    if (state === 'stopping' && holder !== undefined && waitedMs >= stoppingWaitMs) {
      throw new DataDirInUseError(
        `The data directory ${dataDir} is in use by a Tributary process that is still shutting down after ` +
          `${Math.round(waitedMs / 1_000)} s (pid ${holder.pid}, ${holder.owner}).`,
      );
    }
    if (state !== 'stopping' && waitedMs >= dyingWaitMs) {
      throw new DataDirInUseError(
        `The data directory ${dataDir} is locked by another process that did not release it within ` +
          `${Math.round(waitedMs / 1_000)} s (lock file ${path}).`,
      );
    }
    await sleep(POLL_MS);
  }
}
