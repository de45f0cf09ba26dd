import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { AdminRequestFailed, NoServerError, requestAdmin } from '../db/backup/admin-socket.ts';
import { BackupRefusedError } from '../db/backup/backup-format.ts';
import { restoreEmbeddedBackup, type TakenBackup, takeEmbeddedBackup } from '../db/backup/embedded-backup.ts';
import { openEmbeddedStore } from '../db/pglite-store.ts';

/**
 * `tributary backup PATH` and `tributary restore PATH` (docs/backups.md). Neither opens the runtime:
 * a backup asks the running server over DATA_DIR/admin.sock (the server holds the directory), and
 * only when no server runs does it open the store itself; a restore writes into an empty DATA_DIR.
 */
const POSTGRES =
  'with DATABASE_URL the database is PostgreSQL: back it up with pgBackRest (WAL archiving and point-in-time recovery, docs/backups.md)';
/** A backup of a large store takes a while; the server answers when the file is complete. */
const BACKUP_TIMEOUT_MS = 30 * 60_000;

export async function backupCommand(config: Config, path: string): Promise<{ value: unknown; human: string }> {
  if (config.databaseUrl !== undefined) throw new BackupRefusedError(POSTGRES);
  const dataDir = resolve(config.dataDir);
  const dest = resolve(path);
  let taken: TakenBackup;
  let by: 'server' | 'cli';
  try {
    taken = (await requestAdmin(dataDir, { op: 'backup', path: dest }, BACKUP_TIMEOUT_MS)) as TakenBackup;
    by = 'server';
  } catch (error) {
    if (error instanceof AdminRequestFailed) throw new BackupRefusedError(`the server refused: ${error.message}`);
    if (!(error instanceof NoServerError)) throw error;
    // No server: take the directory ourselves (refused with DataDirInUseError if a server holds it
    // but does not answer on its socket, e.g. one started before backups existed).
    const store = await openEmbeddedStore({ dataDir, owner: 'tributary backup' });
    try {
      taken = await takeEmbeddedBackup(store, dataDir, dest);
      by = 'cli';
    } finally {
      await store.close();
    }
  }
  const m = taken.manifest;
  return {
    value: { path: taken.path, taken_by: by, ...m },
    human:
      `Backup written to ${taken.path} (${m.payload.bytes} bytes, schema ${m.schema_version}, writes paused ${m.pause_ms} ms` +
      `${by === 'server' ? ', taken by the running server' : ''}).` +
      (m.secret_included ? '\nIt contains DATA_DIR/secret.key: keep it as secret as the data directory.' : ''),
  };
}

export async function restoreCommand(config: Config, path: string): Promise<{ value: unknown; human: string }> {
  if (config.databaseUrl !== undefined) throw new BackupRefusedError(POSTGRES);
  const dataDir = resolve(config.dataDir);
  const restored = await restoreEmbeddedBackup(resolve(path), dataDir);
  const m = restored.manifest;
  return {
    value: { data_dir: dataDir, files: restored.files, recovery_ms: restored.recoveryMs, ...m },
    human:
      `Restored ${path} (taken ${m.created_at}, schema ${m.schema_version}) into ${dataDir}: ${restored.files} files.` +
      (m.secret_included ? '' : '\nThe backup holds no secret.key: start the server with the same TRIBUTARY_SECRET as before.'),
  };
}
