import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/** The filesystem that holds `path`: its size and the bytes an unprivileged process may still write. */
export async function filesystemSpace(path: string): Promise<{ sizeBytes: number; freeBytes: number }> {
  const s = await statfs(path);
  return { sizeBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize };
}

/**
 * Bytes allocated under `dir` (like `du -s`, in 512-byte blocks), walking at most `maxEntries`
 * files and directories so that a surprising tree cannot make one call unbounded; `complete` is
 * false when it stopped early.
 */
export async function directoryBytes(dir: string, maxEntries = 200_000): Promise<{ bytes: number; complete: boolean }> {
  let bytes = 0;
  let seen = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue; // removed meanwhile (PostgreSQL deletes files as it goes)
    }
    for (const name of names) {
      if (seen >= maxEntries) return { bytes, complete: false };
      seen += 1;
      const path = join(current, name);
      try {
        const s = await lstat(path);
        bytes += s.blocks * 512;
        if (s.isDirectory()) stack.push(path);
      } catch {
        // removed between readdir and lstat
      }
    }
  }
  return { bytes, complete: true };
}
