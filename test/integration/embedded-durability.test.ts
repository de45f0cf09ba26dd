import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { openEmbeddedStoreOnWorker } from '../../src/db/pglite-worker-store.ts';
import type { Store } from '../../src/db/store.ts';

/**
 * The embedded store's durability (docs/reliability.md, "Embedded store durability"): PGlite on
 * disk runs with fsync on and a WAL sync method that reaches the host's fsync, so a commit is
 * flushed to the device before it returns; and a commit that returned survives kill -9. Both ways
 * of running it: PGlite on the calling thread, and on its own worker thread (the server's default,
 * decision 0020), where a commit's reply leaves the worker only after its fsync.
 */
type DurableStore = Store & { fsyncs(): number };

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-durability-'));
  dirs.push(dir);
  return dir;
}

const OPENERS = { main: openEmbeddedStore, worker: openEmbeddedStoreOnWorker } as const;

for (const [thread, openEmbedded] of Object.entries(OPENERS))
  describe(`embedded store durability (${thread} thread)`, () => {
    it('runs with fsync on and syncs the WAL on every commit, never on a read', async () => {
      const store = (await openEmbedded({ dataDir: tempDir(), owner: 'test' })) as DurableStore;
      try {
        const settings = await store.query<{ name: string; setting: string }>(
          `SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'wal_sync_method', 'synchronous_commit') ORDER BY name`,
        );
        assert.deepEqual(
          settings.map((r) => `${r.name}=${r.setting}`),
          ['fsync=on', 'synchronous_commit=on', 'wal_sync_method=fsync'],
        );
        await store.exec('CREATE TABLE durable_probe (id int PRIMARY KEY)');

        for (let i = 0; i < 5; i += 1) {
          const before = store.fsyncs();
          await store.transaction(async (tx) => {
            await tx.query('INSERT INTO durable_probe (id) VALUES ($1)', [i]);
            await tx.query('INSERT INTO durable_probe (id) VALUES ($1)', [i + 100]);
          });
          assert.ok(store.fsyncs() > before, `commit ${i} was flushed before it returned`);
        }
        const beforeRead = store.fsyncs();
        const rows = await store.query<{ n: number }>('SELECT count(*)::int AS n FROM durable_probe');
        assert.equal(rows[0]?.n, 10);
        assert.equal(store.fsyncs(), beforeRead, 'a read flushes nothing');
      } finally {
        await store.close();
      }
    });

    it('every commit that returned is there after the process is killed with SIGKILL', async () => {
      const dataDir = tempDir();
      // A child commits one row per transaction and reports each commit as it returns, then kills
      // itself with SIGKILL mid-stream: no close, no shutdown hook.
      const script = `
      const { openEmbeddedStore } = await import('./src/db/pglite-store.ts');
      const { openEmbeddedStoreOnWorker } = await import('./src/db/pglite-worker-store.ts');
      const open = process.env.PROBE_THREAD === 'worker' ? openEmbeddedStoreOnWorker : openEmbeddedStore;
      const store = await open({ dataDir: process.env.PROBE_DIR, owner: 'probe' });
      await store.exec('CREATE TABLE IF NOT EXISTS durable_probe (id int PRIMARY KEY)');
      for (let i = 0; ; i += 1) {
        await store.transaction((tx) => tx.query('INSERT INTO durable_probe (id) VALUES ($1)', [i]));
        process.stdout.write('committed ' + i + '\\n');
        if (i === 300) process.kill(process.pid, 'SIGKILL');
      }`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, PROBE_DIR: dataDir, PROBE_THREAD: thread },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
      assert.equal(signal, 'SIGKILL');
      const committed = out
        .split('\n')
        .filter((line) => line.startsWith('committed '))
        .map((line) => Number(line.slice('committed '.length)));
      assert.equal(committed.length, 301);

      const store = await openEmbedded({ dataDir, owner: 'test' });
      try {
        const rows = await store.query<{ id: number }>('SELECT id FROM durable_probe ORDER BY id');
        const present = new Set(rows.map((r) => r.id));
        assert.deepEqual(
          committed.filter((id) => !present.has(id)),
          [],
          'no reported commit is missing',
        );
      } finally {
        await store.close();
      }
    });
  });
