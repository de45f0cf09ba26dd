import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { isStoreUnavailable, isUniqueViolation, StoreUnavailableError } from '../../src/db/db-errors.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { openEmbeddedStoreOnWorker } from '../../src/db/pglite-worker-store.ts';
import type { Store } from '../../src/db/store.ts';
import { tempDataDir } from '../harness/server-process.ts';

/**
 * The embedded store on its own worker thread (decision 0020) keeps the contract of the store on
 * the calling thread: the same values, the same errors (classified by db-errors.ts), transactions
 * that commit, roll back and keep other work out while open, the directory lock in the calling
 * thread, and a dead worker is "unavailable", never a hang. Durability: embedded-durability.test.ts.
 */
const SCHEMA = `CREATE TABLE probe (id int8 PRIMARY KEY, at timestamptz, doc jsonb, label text UNIQUE, n numeric)`;
const ROW = [9007199254740993n, new Date('2026-11-26T01:02:03.456Z'), JSON.stringify({ a: [1, 'b'], c: null }), 'x', '12.50'];

// One store of each kind for the tests that compare them (a fresh in-memory PGlite takes seconds).
let stores: Promise<[Store, Store]> | undefined;
after(async () => {
  if (stores !== undefined) for (const s of await stores) await s.close();
});

async function withStores(fn: (worker: Store, main: Store) => Promise<void>): Promise<void> {
  stores ??= (async () => {
    const opened: [Store, Store] = [
      await openEmbeddedStoreOnWorker({ owner: 'test' }),
      await openEmbeddedStore({ owner: 'test' }),
    ];
    for (const s of opened) await s.exec(SCHEMA);
    return opened;
  })();
  const [worker, main] = await stores;
  for (const s of [worker, main]) await s.exec('TRUNCATE probe');
  await fn(worker, main);
}

describe('embedded store on a worker thread', () => {
  it('returns the same values as the store on the calling thread (int8, timestamptz, jsonb, numeric)', async () => {
    await withStores(async (worker, main) => {
      const results = [];
      for (const s of [worker, main]) {
        await s.query('INSERT INTO probe (id, at, doc, label, n) VALUES ($1, $2, $3, $4, $5)', ROW);
        results.push(await s.query('SELECT id, at, doc, label, n, id * 2 AS twice FROM probe'));
      }
      assert.deepEqual(results[0], results[1]);
      assert.equal(results[0]?.[0]?.['id'], 9007199254740993n, 'int8 beyond 2^53 arrives exactly');
      assert.ok(results[0]?.[0]?.['at'] instanceof Date);
    });
  });

  it('raises driver errors that db-errors.ts classifies as on the calling thread', async () => {
    await withStores(async (worker, main) => {
      const errors: unknown[] = [];
      for (const s of [worker, main]) {
        await s.query('INSERT INTO probe (id, label) VALUES (1, $1)', ['dup']);
        errors.push(await s.query('INSERT INTO probe (id, label) VALUES (2, $1)', ['dup']).catch((e: unknown) => e));
      }
      for (const e of errors) {
        assert.ok(e instanceof Error);
        assert.equal(isUniqueViolation(e, 'probe_label_key'), true);
        assert.equal(isUniqueViolation(e, 'probe_pkey'), false);
      }
      assert.equal((errors[0] as { code?: string }).code, (errors[1] as { code?: string }).code);
      const syntax = await worker.query('SELEC 1').catch((e: unknown) => e);
      assert.equal((syntax as { code?: string }).code, '42601');
    });
  });

  it('commits, rolls back when fn throws, and keeps other queries out while a transaction is open', async () => {
    await withStores(async (worker) => {
      const value = await worker.transaction(async (tx) => {
        await tx.query('INSERT INTO probe (id) VALUES (1)');
        return 'done';
      });
      assert.equal(value, 'done');
      await assert.rejects(
        worker.transaction(async (tx) => {
          await tx.query('INSERT INTO probe (id) VALUES (2)');
          throw new Error('changed my mind');
        }),
        /changed my mind/,
      );
      // A failed statement aborts the transaction; the caller's error wins and nothing is kept.
      await assert.rejects(
        worker.transaction(async (tx) => {
          await tx.query('INSERT INTO probe (id) VALUES (3)');
          await tx.query('INSERT INTO probe (id) VALUES (1)');
        }),
        (e: unknown) => isUniqueViolation(e),
      );
      // While a transaction is open, a plain query waits for its end and sees its commit.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const open = worker.transaction(async (tx) => {
        await tx.query('INSERT INTO probe (id) VALUES (4)');
        await held;
        await tx.query('INSERT INTO probe (id) VALUES (5)');
      });
      const outside = worker.query<{ ids: string }>(`SELECT string_agg(id::text, ',' ORDER BY id) AS ids FROM probe`);
      let outsideDone = false;
      void outside.then(() => (outsideDone = true));
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(outsideDone, false, 'the plain query waits for the open transaction');
      release();
      await open;
      assert.equal((await outside)[0]?.ids, '1,4,5');
    });
  });

  it('refuses a parameter the thread cannot be sent, and answers the calls after it as before', async () => {
    await withStores(async (worker) => {
      // A function cannot be structured-cloned: the call fails before it reaches the thread.
      await assert.rejects(worker.query('SELECT $1::text AS x', [() => 1]), { name: 'DataCloneError' });
      const answers = await Promise.all([1, 2, 3].map((n) => worker.query<{ n: number }>('SELECT $1::int AS n', [n])));
      assert.deepEqual(
        answers.map((rows) => rows[0]?.n),
        [1, 2, 3],
      );
    });
  });

  it('dumps a data directory that a new worker store starts from', async () => {
    const source = (await openEmbeddedStoreOnWorker({ owner: 'test' })) as Store & { dump(): Promise<Blob> };
    let blob: Blob;
    try {
      await source.exec(SCHEMA);
      await source.query('INSERT INTO probe (id, label) VALUES (7, $1)', ['kept']);
      blob = await source.dump();
    } finally {
      await source.close();
    }
    const copy = await openEmbeddedStoreOnWorker({ owner: 'test', loadDataDir: blob });
    try {
      assert.deepEqual(await copy.query('SELECT id, label FROM probe'), [{ id: 7n, label: 'kept' }]);
    } finally {
      await copy.close();
    }
  });

  it('takes the directory lock in the calling thread: another process is refused with DataDirInUseError', async () => {
    const dataDir = tempDataDir();
    const first = await openEmbeddedStoreOnWorker({ dataDir, owner: 'first' });
    try {
      // The lock is per process (a lock of this pid counts as stale), so the second opener is a child.
      const script = `
        const { openEmbeddedStoreOnWorker } = await import('./src/db/pglite-worker-store.ts');
        try {
          const store = await openEmbeddedStoreOnWorker({ dataDir: process.env.PROBE_DIR, owner: 'second' });
          await store.close();
          process.stdout.write('opened');
        } catch (error) {
          process.stdout.write(error.name);
        }`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, PROBE_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(out, 'DataDirInUseError');
    } finally {
      await first.close();
    }
    const again = await openEmbeddedStoreOnWorker({ dataDir, owner: 'again' });
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers "unavailable" for calls in flight and after, when the worker is gone', async () => {
    const store = (await openEmbeddedStoreOnWorker({ owner: 'test' })) as Store & { worker: { terminate(): Promise<number> } };
    try {
      const inFlight = store.query('SELECT pg_sleep(0.5)').catch((e: unknown) => e);
      await store.worker.terminate();
      const first = await inFlight;
      assert.ok(first instanceof StoreUnavailableError, String(first));
      const later = await store.query('SELECT 1').catch((e: unknown) => e);
      assert.ok(isStoreUnavailable(later));
      await assert.rejects(
        store.transaction(async () => 1),
        StoreUnavailableError,
      );
    } finally {
      await store.close();
    }
  });
});
