import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BACKUP_MAGIC, decodeHeader, encodeHeader, HEADER_BYTES, tarHeader, TAR_END } from '../../src/db/backup/backup-format.ts';
import { buildSchemaVersion, readBackupFile } from '../../src/db/backup/embedded-backup.ts';
import { waitReady } from './harness/api-client.ts';
import { acknowledgedSoFar, checkReplays, checkRestoredStore, startPayer } from './harness/backup-checks.ts';
import { startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import {
  createMerchant,
  killIfRunning,
  newSecret,
  REPO_ROOT,
  type ServerProcess,
  serverEnv,
  sleep,
  startServer,
  type StoreTarget,
  tempDir,
} from './harness/processes.ts';

/**
 * Backup and restore of the embedded store (docs/backups.md): a real server under create load (and
 * a payer, so captures and ledger entries exist), `tributary backup` mid-load through the server's
 * admin socket, `tributary restore` into a fresh DATA_DIR, a server on it. Every payment
 * acknowledged before the backup started is there with its key, events and ledger entries, the
 * ledger balances, and replaying its key returns the same bytes. Then the refusals, and the
 * scheduled backup keeping the last N.
 */
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `node bin/tributary.js …` with the store and secret of `target` (bounded at 5 minutes). */
async function tributary(target: StoreTarget, secret: string, args: string[]): Promise<CliResult> {
  const started = Date.now();
  const child = spawn(process.execPath, ['bin/tributary.js', ...args], {
    cwd: REPO_ROOT,
    env: serverEnv(target, secret, {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr, ms: Date.now() - started };
}

const dir = tempDir('backup');
cleanups.push(() => dir.remove());
const secret = newSecret();
const source: StoreTarget = { kind: 'embedded', dataDir: join(dir.path, 'source') };
const backupFile = join(dir.path, 'mid-load.tbk');

describe('backup and restore of the embedded store', () => {
  it('a backup taken mid-load restores every acknowledged payment with its key, events and ledger', async () => {
    const merchant = await createMerchant(source, secret, 'Backup');
    let server: ServerProcess | undefined = await startServer({
      target: source,
      secret,
      env: { WEBHOOK_ALLOWLIST: '127.0.0.1' },
    });
    cleanups.push(() => killIfRunning(server));
    const url = server.url;
    const load = startCreateLoad({ tag: 'bke', baseUrl: () => url, apiKey: merchant.sandboxKey, workers: 4, staggerMs: 30 });
    const payer = startPayer({ baseUrl: () => url, apiKey: merchant.sandboxKey, ledger: load.ledger, everyMs: 100 });
    let before: ReturnType<typeof acknowledgedSoFar>;
    let backup: CliResult;
    let backupStartedAt: number;
    try {
      for (let waited = 0; load.ledger.acked.size < 150 && waited < 60_000; waited += 100) await sleep(100);
      // Everything acknowledged up to here was committed before the backup started.
      before = acknowledgedSoFar(load.ledger);
      backupStartedAt = Date.now();
      backup = await tributary(source, secret, ['backup', backupFile, '--json']);
      await sleep(1_500); // load goes on after the backup, and must not end up in it... or matter
    } finally {
      await payer.stop();
      await load.stop();
    }
    const backupEndedAt = backupStartedAt + backup.ms;
    assert.equal(backup.code, 0, `tributary backup failed: ${backup.stderr}`);
    const taken = JSON.parse(backup.stdout) as {
      taken_by: string;
      pause_ms: number;
      schema_version: number;
      payload: { bytes: number };
    };
    assert.equal(taken.taken_by, 'server', 'the backup was taken by the running server (no stop)');
    assert.equal(taken.schema_version, buildSchemaVersion());
    const during = load.ledger.responses.filter((r) => r.at >= backupStartedAt && r.at <= backupEndedAt + 2_000);
    const slowest = Math.max(0, ...during.map((r) => r.elapsedMs));
    console.log(
      `# backup: ${backup.ms} ms wall, writes paused ${taken.pause_ms} ms, ${taken.payload.bytes} bytes; ` +
        `${during.length} creates answered during it (slowest ${Math.round(slowest)} ms); load: ${load.ledger.summary()}`,
    );
    assert.deepEqual(load.ledger.violations, [], 'the service kept answering 201 during the backup');
    assert.ok(
      during.some((r) => r.status === 201),
      'creates were acknowledged while the backup ran',
    );
    assert.ok(before.ids.size >= 150, `enough payments before the backup (${before.ids.size})`);

    const exit = await server.terminate();
    assert.equal(exit.code, 0);
    server = undefined;

    // Restore into a fresh DATA_DIR.
    const restored: StoreTarget = { kind: 'embedded', dataDir: join(dir.path, 'restored') };
    const restore = await tributary(restored, secret, ['restore', backupFile, '--json']);
    assert.equal(restore.code, 0, `tributary restore failed: ${restore.stderr}`);
    const restoredInfo = JSON.parse(restore.stdout) as { files: number; recovery_ms: number };
    console.log(
      `# restore: ${restore.ms} ms wall, ${restoredInfo.files} files, first open (WAL recovery) ${restoredInfo.recovery_ms} ms`,
    );

    const { problems, counts } = await withStoreQuery(source, (sourceQuery) =>
      withStoreQuery(restored, (restoredQuery) => checkRestoredStore(sourceQuery, restoredQuery, before.ids)),
    );
    console.log(`# restored store: ${JSON.stringify(counts)} for ${before.ids.size} payments acknowledged before the backup`);
    assert.deepEqual(problems.slice(0, 20), []);
    assert.equal(counts.payments, before.ids.size);
    assert.ok(counts.succeeded > 0 && counts.postings > 0, 'some of them were paid, with ledger entries, before the backup');

    // A server on the restored store: replays answer with the very bytes of the first 201.
    const again = await startServer({ target: restored, secret });
    cleanups.push(() => killIfRunning(again));
    await waitReady(again.url);
    const replayProblems = await checkReplays(again.url, merchant.sandboxKey, before.bodies);
    console.log(`# replayed ${before.bodies.size} keys on the restored server`);
    assert.deepEqual(replayProblems.slice(0, 20), []);
    assert.equal((await again.terminate()).code, 0);
  });

  it('refuses a tarball that is not a Tributary backup, a newer schema, a damaged file and a non-empty DATA_DIR', async () => {
    assert.ok(existsSync(backupFile), 'the first scenario left its backup');
    const empty = (name: string): StoreTarget => ({ kind: 'embedded', dataDir: join(dir.path, name) });

    // A plain tar of a data directory (what PGlite's dumpDataDir or `tar` makes).
    const foreign = join(dir.path, 'foreign.tar');
    writeFileSync(
      foreign,
      Buffer.concat([tarHeader('PG_VERSION', 'file', 3, 0o600, 0), Buffer.from('17\n'), Buffer.alloc(509), TAR_END]),
    );
    const notOurs = await tributary(empty('r-foreign'), secret, ['restore', foreign]);
    assert.equal(notOurs.code, 2);
    assert.match(notOurs.stderr, /is not a Tributary backup/);
    assert.equal(existsSync(join(dir.path, 'r-foreign')), false, 'nothing was written');

    // The same backup, its manifest claiming a schema newer than this build's.
    const file = readFileSync(backupFile);
    const manifest = decodeHeader(file.subarray(0, HEADER_BYTES), backupFile, buildSchemaVersion());
    const newer = join(dir.path, 'newer.tbk');
    const future = { ...manifest, schema_version: buildSchemaVersion() + 1, schema_migration: '9999_from_the_future' };
    writeFileSync(newer, Buffer.concat([encodeHeader(future), file.subarray(HEADER_BYTES)]));
    const tooNew = await tributary(empty('r-newer'), secret, ['restore', newer]);
    assert.equal(tooNew.code, 2);
    assert.match(tooNew.stderr, /holds schema version \d+ \(9999_from_the_future.*newer than this build's/);
    assert.equal(existsSync(join(dir.path, 'r-newer')), false);

    // One flipped byte in the payload.
    const damaged = join(dir.path, 'damaged.tbk');
    const copy = Buffer.from(file);
    copy[HEADER_BYTES + 1000] = (copy[HEADER_BYTES + 1000] as number) ^ 0xff;
    writeFileSync(damaged, copy);
    const bad = await tributary(empty('r-damaged'), secret, ['restore', damaged]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /is damaged or truncated/);

    // A DATA_DIR with something in it is left alone.
    const occupied = join(dir.path, 'r-occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'notes.txt'), 'keep me');
    const full = await tributary(empty('r-occupied'), secret, ['restore', backupFile]);
    assert.equal(full.code, 2);
    assert.match(full.stderr, /is not empty \(it holds notes\.txt\): restore only into an empty directory/);
    assert.deepEqual(readdirSync(occupied), ['notes.txt']);
    assert.ok(file.subarray(0, BACKUP_MAGIC.length).toString() === BACKUP_MAGIC);
  });

  it('the scheduled backup writes to BACKUP_DIR every BACKUP_EVERY and keeps the last BACKUP_KEEP', async () => {
    const backupDir = join(dir.path, 'scheduled');
    mkdirSync(backupDir);
    writeFileSync(join(backupDir, 'unrelated.txt'), 'not a backup');
    const server = await startServer({
      target: source,
      secret,
      env: { BACKUP_DIR: backupDir, BACKUP_EVERY: '1s', BACKUP_KEEP: '2' },
    });
    cleanups.push(() => killIfRunning(server));
    const seen = new Set<string>();
    const ours = () => readdirSync(backupDir).filter((n) => n.endsWith('.tbk'));
    for (let waited = 0; seen.size < 4 && waited < 120_000; waited += 100) {
      for (const name of ours()) seen.add(name);
      await sleep(100);
    }
    assert.equal((await server.terminate()).code, 0);
    // A backup running at the SIGTERM is finished by the shutdown (jobs stop after their run).
    for (const name of ours()) seen.add(name);
    const kept = ours().sort();
    console.log(`# scheduled: saw ${seen.size} backups, kept ${kept.join(', ')}`);
    assert.ok(seen.size >= 4, `at least four scheduled backups were written (saw ${seen.size})`);
    assert.equal(kept.length, 2);
    assert.deepEqual(kept, [...seen].sort().slice(-2), 'the two newest are kept');
    assert.ok(existsSync(join(backupDir, 'unrelated.txt')), 'other files are never deleted');
    for (const name of kept) assert.equal(readBackupFile(join(backupDir, name)).manifest.schema_version, buildSchemaVersion());
  });
});
