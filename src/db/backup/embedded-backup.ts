import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gunzipSync } from 'node:zlib';
import { lockDataDir } from '../data-dir-lock.ts';
import { EXCLUDED, STAGING_DIR } from './data-dir-copy.ts';
import { loadMigrations } from '../migrate.ts';
import { openLockedEmbeddedStore } from '../pglite-store.ts';
import type { Store } from '../store.ts';
import {
  type BackupManifest,
  BACKUP_FORMAT_VERSION,
  BackupRefusedError,
  decodeHeader,
  encodeHeader,
  HEADER_BYTES,
  readTar,
  TAR_END,
  tarHeader,
  tarPadding,
  TRIBUTARY_VERSION,
} from './backup-format.ts';

/**
 * Backups of the embedded store (docs/backups.md).
 *
 * Taking one: the server (which holds DATA_DIR) copies the data directory into a staging directory
 * on the database's own thread while it holds PGlite's transaction and query locks — so between
 * transactions, with PostgreSQL idle — then, with writes flowing again, archives the copy into the
 * backup file. The copy is what a crash at that instant would leave on disk: every committed
 * transaction is in the WAL (fsynced at commit, decision 0017), and the restore's first start
 * replays it, exactly as after `kill -9`.
 */

const SECRET_FILE = 'secret.key';

/** The highest migration this build knows: a backup of a newer schema is refused. */
export function buildSchemaVersion(): number {
  return Math.max(0, ...loadMigrations().map((m) => m.version));
}

/** The staged copy as a ustar stream, files in a stable order. */
async function* tarStream(root: string): AsyncGenerator<Buffer> {
  const walk = function* (dir: string): Generator<{ path: string; type: 'file' | 'dir' }> {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        yield { path, type: 'dir' };
        yield* walk(path);
      } else if (entry.isFile()) yield { path, type: 'file' };
    }
  };
  for (const { path, type } of walk(root)) {
    const name = relative(root, path).split(sep).join('/');
    const stat = statSync(path);
    if (type === 'dir') {
      yield tarHeader(name, 'dir', 0, 0o700, stat.mtimeMs / 1000);
      continue;
    }
    // Asynchronous reads: the archive is built while the server serves, off its event loop.
    const data = await readFile(path);
    yield tarHeader(name, 'file', data.length, 0o600, stat.mtimeMs / 1000);
    yield data;
    yield tarPadding(data.length);
  }
  yield TAR_END;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface TakenBackup {
  path: string;
  manifest: BackupManifest;
}

/** Backups queue behind each other (a scheduled one and a `tributary backup`); a few at most. */
let queue: Promise<unknown> = Promise.resolve();
let queued = 0;
const MAX_QUEUED = 3;

/**
 * Writes a backup of `store` (embedded, holding `dataDir`) to `dest`: staged copy, archive, header,
 * fsync, rename — a file at `dest` is always complete. One backup at a time per process.
 */
export async function takeEmbeddedBackup(store: Store, dataDir: string, dest: string): Promise<TakenBackup> {
  if (queued >= MAX_QUEUED) throw new BackupRefusedError(`${queued} backups are already waiting in this server; try again later`);
  queued += 1;
  const run = queue.then(() => backupNow(store, dataDir, dest));
  queue = run.catch(() => undefined);
  try {
    return await run;
  } finally {
    queued -= 1;
  }
}

async function backupNow(store: Store, dataDir: string, dest: string): Promise<TakenBackup> {
  if (store.snapshot === undefined) throw new BackupRefusedError('only the embedded store is backed up by Tributary');
  if (existsSync(dest)) throw new BackupRefusedError(`${dest} exists already; choose a new name`);
  const staging = join(dataDir, STAGING_DIR, `snapshot-${process.pid}-${randomBytes(4).toString('hex')}`);
  const partial = `${dest}.partial-${randomBytes(4).toString('hex')}`;
  try {
    // Migrations run only at start, in the process holding DATA_DIR: the schema cannot change
    // between this query and the copy.
    const [schema] = await store.query<{ version: number; name: string }>(
      'SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1',
    );
    if (schema === undefined) throw new BackupRefusedError('the store has no migrations applied: nothing to back up');
    mkdirSync(dirname(staging), { recursive: true, mode: 0o700 });
    const { pauseMs } = await store.snapshot(staging);
    const secretIncluded = existsSync(join(staging, SECRET_FILE));

    const hash = createHash('sha256');
    let bytes = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    });
    // The header's place is left empty and written last, once the checksum is known.
    const out = createWriteStream(partial, { flags: 'wx', mode: 0o600, start: HEADER_BYTES });
    await pipeline(Readable.from(tarStream(staging)), createGzip({ level: 6 }), count, out);
    const manifest: BackupManifest = {
      format: 'tributary-backup',
      format_version: BACKUP_FORMAT_VERSION,
      tributary_version: TRIBUTARY_VERSION,
      store: 'embedded',
      schema_version: Number(schema.version),
      schema_migration: schema.name,
      created_at: new Date().toISOString(),
      payload: { encoding: 'tar+gzip', bytes, sha256: hash.digest('hex') },
      pause_ms: Math.round(pauseMs * 10) / 10,
      secret_included: secretIncluded,
    };
    const fd = openSync(partial, 'r+');
    try {
      writeSync(fd, encodeHeader(manifest), 0, HEADER_BYTES, 0);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, dest);
    fsyncPath(dirname(dest));
    return { path: dest, manifest };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(partial, { force: true });
  }
}

/** Reads and checks a backup file whole: header, length and checksum. */
export function readBackupFile(path: string): { manifest: BackupManifest; payload: Buffer } {
  // The header first: a file that is not a backup, or of a newer schema, is refused before the
  // rest of it is read.
  let manifest: BackupManifest;
  let file: Buffer;
  try {
    const fd = openSync(path, 'r');
    try {
      const header = Buffer.alloc(HEADER_BYTES);
      const got = readSync(fd, header, 0, HEADER_BYTES, 0);
      manifest = decodeHeader(header.subarray(0, got), path, buildSchemaVersion());
    } finally {
      closeSync(fd);
    }
    file = readFileSync(path);
  } catch (error) {
    if (error instanceof BackupRefusedError) throw error;
    throw new BackupRefusedError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const payload = file.subarray(HEADER_BYTES);
  const sha256 = createHash('sha256').update(payload).digest('hex');
  if (payload.length !== manifest.payload.bytes || sha256 !== manifest.payload.sha256) {
    throw new BackupRefusedError(
      `${path} is damaged or truncated: ${payload.length} payload bytes with sha256 ${sha256.slice(0, 12)}…, the manifest says ${manifest.payload.bytes} with ${manifest.payload.sha256.slice(0, 12)}…`,
    );
  }
  return { manifest, payload };
}

/** What an "empty" DATA_DIR may hold: nothing, or only a lock file a previous process left. */
function contentsOf(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  if (!lstatSync(dataDir).isDirectory()) throw new BackupRefusedError(`DATA_DIR ${dataDir} is not a directory`);
  return readdirSync(dataDir).filter((name) => name !== 'tributary.lock');
}

export interface RestoreResult {
  manifest: BackupManifest;
  files: number;
  /** The first open of the restored store: PostgreSQL's recovery replays the WAL in the copy. */
  recoveryMs: number;
}

/**
 * Restores a backup into an empty DATA_DIR, then opens it once (recovery) and checks that it is
 * the schema the manifest says. On any failure DATA_DIR is emptied again.
 */
export async function restoreEmbeddedBackup(path: string, dataDir: string, owner = 'tributary restore'): Promise<RestoreResult> {
  const { manifest, payload } = readBackupFile(path);
  const refuseNotEmpty = (found: string[]) =>
    new BackupRefusedError(
      `DATA_DIR ${dataDir} is not empty (it holds ${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''}): restore only into an empty directory (move the old one aside first)`,
    );
  const before = contentsOf(dataDir);
  if (before.length > 0) throw refuseNotEmpty(before);
  let archive: Buffer;
  try {
    archive = gunzipSync(payload);
  } catch (error) {
    throw new BackupRefusedError(`${path} is damaged: its archive does not decompress (${(error as Error).message})`);
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = await lockDataDir(dataDir, owner);
  let files = 0;
  try {
    const raced = contentsOf(dataDir);
    if (raced.length > 0) throw refuseNotEmpty(raced);
    const dirs = new Set<string>([dataDir]);
    for (const entry of readTar(archive)) {
      if (EXCLUDED.has(entry.name.split('/')[0] as string)) continue;
      const target = join(dataDir, ...entry.name.split('/'));
      if (entry.type === 'dir') {
        mkdirSync(target, { recursive: true, mode: 0o700 });
        dirs.add(target);
        continue;
      }
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      dirs.add(dirname(target));
      const fd = openSync(target, 'wx', 0o600);
      try {
        writeSync(fd, entry.data);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      files += 1;
    }
    for (const dir of dirs) fsyncPath(dir);
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      throw new BackupRefusedError(`${path} holds no database (no PG_VERSION in its archive)`);
    }
    const started = performance.now();
    const store = await openLockedEmbeddedStore({ dataDir }, lock);
    try {
      const rows = await store
        .query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations')
        .catch(() => undefined);
      const version = rows?.[0]?.version;
      if (version === undefined || Number(version) !== manifest.schema_version) {
        throw new BackupRefusedError(
          `${path} does not hold the Tributary schema its manifest names (version ${manifest.schema_version}; found ${String(version)})`,
        );
      }
    } finally {
      // A clean shutdown: the restored directory starts without recovery next time.
      await store.close();
    }
    return { manifest, files, recoveryMs: Math.round(performance.now() - started) };
  } catch (error) {
    for (const name of contentsOf(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    throw error;
  } finally {
    lock.release();
  }
}

const BACKUP_NAME = /^tributary-\d{8}T\d{6}(\d{3})?Z\.tbk$/;

/** The name of a scheduled backup made at `at`: sorts by time. */
export function scheduledBackupName(at: Date): string {
  return `tributary-${at.toISOString().replace(/[-:]/g, '').replace('.', '')}.tbk`;
}

/** Deletes all but the newest `keep` scheduled backups in `dir`; never touches other files. */
export function pruneBackups(dir: string, keep: number): string[] {
  const ours = readdirSync(dir)
    .filter((name) => BACKUP_NAME.test(name))
    .sort();
  const removed = ours.slice(0, Math.max(0, ours.length - keep));
  for (const name of removed) unlinkSync(join(dir, name));
  if (removed.length > 0) fsyncPath(dir);
  return removed;
}
