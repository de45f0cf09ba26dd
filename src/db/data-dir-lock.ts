import { mkdirSync, openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process per embedded data directory. PGlite does not lock its directory, and two
 * processes writing one PostgreSQL data directory corrupt it, so we refuse the second one with a
 * clear error instead.
 *
 * The lock is a file created with O_EXCL holding the owner's pid. A lock left by a process that is
 * no longer alive (kill -9) is stale and taken over. Known limit: if the pid was reused by an
 * unrelated live process, the lock looks held; the error message says which file to delete.
 */
export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
}

export interface DataDirLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string, owner: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'tributary.lock');
  for (let tries = 0; tries < 3; tries += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, owner, started_at: new Date().toISOString() }));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: number; owner?: string } = {};
    try {
      holder = JSON.parse(readFileSync(path, 'utf8')) as typeof holder;
    } catch {
      // Unreadable or half-written: treat as stale.
    }
    if (typeof holder.pid === 'number' && holder.pid !== process.pid && isAlive(holder.pid)) {
      throw new DataDirInUseError(
        `The data directory ${dataDir} is in use by another Tributary process (pid ${holder.pid}, ${holder.owner ?? 'unknown'}). ` +
          `Stop it first, or point DATA_DIR elsewhere. If no such process is Tributary, delete ${path}.`,
      );
    }
    try {
      unlinkSync(path);
    } catch {
      // Someone else removed it first; try again.
    }
  }
  throw new DataDirInUseError(`Could not lock the data directory ${dataDir}`);
}
