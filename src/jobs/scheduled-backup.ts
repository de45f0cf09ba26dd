import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pruneBackups, scheduledBackupName, takeEmbeddedBackup } from '../db/backup/embedded-backup.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Job } from './job-runner.ts';

/**
 * BACKUP_DIR / BACKUP_EVERY / BACKUP_KEEP (docs/backups.md): every BACKUP_EVERY the server writes a
 * backup of its embedded store to BACKUP_DIR/tributary-<UTC time>.tbk, the same file
 * `tributary backup` makes, then deletes all but the newest BACKUP_KEEP of those files (nothing
 * else in the directory). A failed run is logged and tried again at the next tick; what was kept
 * stays.
 */
export function scheduledBackupJob(deps: {
  store: Store;
  dataDir: string;
  backupDir: string;
  everyMs: number;
  keep: number;
  clock: Clock;
  log: Logger;
}): Job {
  const dir = resolve(deps.backupDir);
  return {
    name: 'scheduled-backup',
    intervalMs: deps.everyMs,
    batchSize: 2, // one backup per tick: never a "full batch"
    async run() {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const taken = await takeEmbeddedBackup(deps.store, deps.dataDir, join(dir, scheduledBackupName(deps.clock.now())));
      const removed = pruneBackups(dir, deps.keep);
      deps.log.info(
        { path: taken.path, bytes: taken.manifest.payload.bytes, pause_ms: taken.manifest.pause_ms, removed: removed.length },
        'scheduled backup written',
      );
      return 1;
    },
  };
}
