import { readFileSync } from 'node:fs';

/**
 * The embedded store's backup file (docs/backups.md): a fixed 4 KiB header, then the payload.
 *
 *   bytes 0..4095   "TRIBUTARY-BACKUP/1\n" + the manifest as one JSON line, padded with spaces, "\n"
 *   bytes 4096..    the data directory as a ustar archive, gzipped
 *
 * The header comes first so that `restore` can refuse a file that is not a Tributary backup, or one
 * of a newer schema, before it reads a byte of the payload; it has a fixed size so that the backup
 * is written in one pass (payload streamed, header written last at offset 0, then the rename).
 */
export const BACKUP_MAGIC = 'TRIBUTARY-BACKUP/1\n';
export const HEADER_BYTES = 4096;
export const BACKUP_FORMAT_VERSION = 1;

export interface BackupManifest {
  format: 'tributary-backup';
  format_version: number;
  /** The Tributary build that made it (package.json version). */
  tributary_version: string;
  store: 'embedded';
  /** The highest applied migration (schema_migrations.version) and its name. */
  schema_version: number;
  schema_migration: string;
  created_at: string;
  payload: { encoding: 'tar+gzip'; bytes: number; sha256: string };
  /** How long writes waited while the data directory was copied (informational). */
  pause_ms: number;
  /** Whether DATA_DIR/secret.key is inside (it is when TRIBUTARY_SECRET was not set). */
  secret_included: boolean;
}

export class BackupRefusedError extends Error {
  override name = 'BackupRefusedError';
}

export const TRIBUTARY_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export function encodeHeader(manifest: BackupManifest): Buffer {
  const text = `${BACKUP_MAGIC}${JSON.stringify(manifest)}`;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > HEADER_BYTES - 1) throw new Error('backup manifest does not fit its header');
  const header = Buffer.alloc(HEADER_BYTES, 0x20);
  bytes.copy(header);
  header[HEADER_BYTES - 1] = 0x0a;
  return header;
}

/**
 * Reads and checks a header: the magic, the format and the schema against this build's
 * (`schemaVersion`, the highest migration it knows). Every refusal says what the file is and what
 * to do, for an operator reading it at 3 a.m.
 */
export function decodeHeader(header: Buffer, what: string, buildSchemaVersion: number): BackupManifest {
  if (header.length < BACKUP_MAGIC.length || header.subarray(0, BACKUP_MAGIC.length).toString('latin1') !== BACKUP_MAGIC) {
    throw new BackupRefusedError(
      `${what} is not a Tributary backup (it does not start with "TRIBUTARY-BACKUP/1"); make one with \`tributary backup PATH\``,
    );
  }
  if (header.length < HEADER_BYTES) throw new BackupRefusedError(`${what} is truncated: its header is incomplete`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(header.subarray(BACKUP_MAGIC.length, HEADER_BYTES).toString('utf8').trim()) as BackupManifest;
  } catch {
    throw new BackupRefusedError(`${what} has a damaged manifest (not JSON)`);
  }
  if (manifest.format !== 'tributary-backup' || typeof manifest.format_version !== 'number') {
    throw new BackupRefusedError(`${what} has a damaged manifest (no format)`);
  }
  if (manifest.format_version > BACKUP_FORMAT_VERSION) {
    throw new BackupRefusedError(
      `${what} was made by Tributary ${manifest.tributary_version} in backup format ${manifest.format_version}; this build (${TRIBUTARY_VERSION}) reads format ${BACKUP_FORMAT_VERSION}: restore it with a newer Tributary`,
    );
  }
  if (manifest.store !== 'embedded') {
    throw new BackupRefusedError(`${what} is a backup of a ${String(manifest.store)} store; restore it with its own tools`);
  }
  if (!Number.isInteger(manifest.schema_version) || typeof manifest.payload?.sha256 !== 'string') {
    throw new BackupRefusedError(`${what} has a damaged manifest (no schema version or checksum)`);
  }
  if (manifest.schema_version > buildSchemaVersion) {
    throw new BackupRefusedError(
      `${what} holds schema version ${manifest.schema_version} (${manifest.schema_migration}, Tributary ${manifest.tributary_version}), newer than this build's ${buildSchemaVersion} (Tributary ${TRIBUTARY_VERSION}): restore it with Tributary ${manifest.tributary_version} or newer`,
    );
  }
  return manifest;
}

// ---- ustar, the part we need: regular files and directories, names up to 255 bytes ----

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** One ustar header block for `name` (relative, '/'-separated). */
export function tarHeader(name: string, type: 'file' | 'dir', size: number, mode: number, mtimeS: number): Buffer {
  const block = Buffer.alloc(BLOCK, 0);
  let prefix = '';
  let base = type === 'dir' ? `${name}/` : name;
  if (Buffer.byteLength(base) > 100) {
    const cut = base.lastIndexOf('/', base.length - 2);
    prefix = base.slice(0, cut);
    base = base.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(base) > 100 || Buffer.byteLength(prefix) > 155) {
      throw new Error(`path too long for the backup archive: ${name}`);
    }
  }
  block.write(base, 0, 100, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 8, 'latin1');
  block.write(octal(0, 8), 108, 8, 'latin1');
  block.write(octal(0, 8), 116, 8, 'latin1');
  block.write(octal(type === 'dir' ? 0 : size, 12), 124, 12, 'latin1');
  block.write(octal(Math.floor(mtimeS), 12), 136, 12, 'latin1');
  block.write('        ', 148, 8, 'latin1');
  block.write(type === 'dir' ? '5' : '0', 156, 1, 'latin1');
  block.write('ustar\u000000', 257, 8, 'latin1');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
  return block;
}

export const tarPadding = (size: number): Buffer => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK, 0);
export const TAR_END = Buffer.alloc(BLOCK * 2, 0);

export interface TarEntry {
  name: string;
  type: 'file' | 'dir';
  data: Buffer;
}

/**
 * Parses a whole archive. Refuses what a data directory never holds: links, devices, absolute
 * names and `..` (a crafted archive must not write outside DATA_DIR).
 */
export function* readTar(archive: Buffer): Generator<TarEntry> {
  let offset = 0;
  while (offset + BLOCK <= archive.length) {
    const block = archive.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) return;
    const stored = parseInt(block.subarray(148, 156).toString('latin1').replace(/\0.*$/s, '').trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 0x20 : (block[i] as number);
    if (stored !== sum) throw new BackupRefusedError(`the archive is damaged (bad header checksum at byte ${offset})`);
    const field = (start: number, length: number) =>
      block
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = (prefix === '' ? field(0, 100) : `${prefix}/${field(0, 100)}`).replace(/\/+$/, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const flag = field(156, 1);
    const type = flag === '5' ? 'dir' : flag === '0' || flag === '' ? 'file' : undefined;
    if (type === undefined) throw new BackupRefusedError(`the archive holds ${name}, which is not a file or a directory`);
    if (name === '' || name.startsWith('/') || name.split('/').some((part) => part === '..' || part === '')) {
      throw new BackupRefusedError(`the archive holds an unsafe name: ${JSON.stringify(name)}`);
    }
    const start = offset + BLOCK;
    const end = start + (type === 'dir' ? 0 : size);
    if (end > archive.length) throw new BackupRefusedError('the archive is truncated');
    yield { name, type, data: archive.subarray(start, end) };
    offset = end + ((BLOCK - ((end - start) % BLOCK)) % BLOCK);
  }
  throw new BackupRefusedError('the archive is truncated (no end marker)');
}
