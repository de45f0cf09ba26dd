import { constants, copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where the server stages its copies; inside DATA_DIR (same filesystem: fast copies, reflinks). */
export const STAGING_DIR = '.backup';
/** Never copied: the lock and pid of the running process, its admin socket, the staging area. */
export const EXCLUDED = new Set(['tributary.lock', 'postmaster.pid', 'admin.sock', STAGING_DIR]);
/**
 * Copies `src` into `dst` (which must not exist), synchronously. Runs on the database thread under
 * PGlite's locks, so it must be quick: copyFileSync is a kernel-side copy (a reflink where the
 * filesystem has them), nothing passes through JavaScript.
 */
export function copyDataDir(src: string, dst: string): number {
  let files = 0;
  const walk = (from: string, to: string, top: boolean) => {
    mkdirSync(to, { mode: 0o700 });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (top && EXCLUDED.has(entry.name)) continue;
      if (entry.isDirectory()) walk(join(from, entry.name), join(to, entry.name), false);
      else if (entry.isFile()) {
        copyFileSync(join(from, entry.name), join(to, entry.name), constants.COPYFILE_FICLONE);
        files += 1;
      }
    }
  };
  walk(src, dst, true);
  return files;
}
