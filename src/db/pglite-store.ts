import { PGlite, type Transaction } from '@electric-sql/pglite';
import { copyDataDir } from './backup/data-dir-copy.ts';
import { isStoreUnavailable, StoreUnavailableError } from './db-errors.ts';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { DURABLE_START_PARAMS, DurableNodeFS } from './durable-node-fs.ts';
import { type StatementCache, statementCache } from './pglite-statements.ts';
import type { Connection, Queryable, Row, Store } from './store.ts';

export interface EmbeddedStoreOptions {
  /** Directory on disk; omit for an in-memory database (tests). */
  dataDir?: string;
  /** A dumped data directory to start from (tests reuse a migrated template). */
  loadDataDir?: Blob;
  /** Who holds the directory lock, shown to a second process that is refused. */
  owner: string;
}

function translate(error: unknown): unknown {
  if (isStoreUnavailable(error) && !(error instanceof StoreUnavailableError)) {
    return new StoreUnavailableError('embedded database unavailable', { cause: error });
  }
  return error;
}

/**
 * The embedded connection's statements: one statement through the prepared-statement cache, under
 * PGlite's locks as its own `query()` takes them — the query lock always, and outside a
 * transaction first the transaction lock, so that a plain statement waits for an open
 * transaction; scripts (`exec`, several statements, no parameters) through PGlite as they are.
 */
function queryable(db: PGlite, statements: StatementCache, tx?: Transaction): Queryable & { end(): void } {
  let ended = false;
  const locked = <T>(fn: () => Promise<T>): Promise<T> => {
    if (ended) throw new Error('the transaction has ended');
    return tx === undefined ? db._runExclusiveTransaction(() => db._runExclusiveQuery(fn)) : db._runExclusiveQuery(fn);
  };
  return {
    async query<T extends Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      try {
        return await locked(() => statements.run<T>(text, params));
      } catch (error) {
        throw translate(error);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await (tx ?? db).exec(script);
      } catch (error) {
        throw translate(error);
      }
    },
    end: () => {
      ended = true;
    },
  };
}

/**
 * PGlite is one PostgreSQL session in this process. It serialises transactions itself: a
 * transaction holds its mutex until it ends, and plain queries wait for it. So transactions here
 * must never wait on the network (and they don't: connectors are called between transactions).
 */
export async function openEmbeddedStore(options: EmbeddedStoreOptions): Promise<Store> {
  const lock = options.dataDir === undefined ? undefined : await lockDataDir(options.dataDir, options.owner);
  return openLockedEmbeddedStore(options, lock);
}

/**
 * The same store for a caller that already holds the directory lock (or needs none: in memory).
 * The worker-thread store (pglite-worker-store.ts) locks in the main thread, where a refusal is a
 * `DataDirInUseError` the process can report, and opens PGlite here in the worker.
 */
export async function openLockedEmbeddedStore(
  options: Omit<EmbeddedStoreOptions, 'owner'>,
  lock: DataDirLock | undefined,
): Promise<Store> {
  let db: PGlite;
  // On disk, every commit is fsynced before it returns (durable-node-fs.ts); in memory there is
  // nothing to flush.
  const fs = options.dataDir === undefined ? undefined : new DurableNodeFS(options.dataDir);
  try {
    db = await PGlite.create({
      ...(fs === undefined ? {} : { fs, startParams: [...DURABLE_START_PARAMS] }),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: options.loadDataDir }),
      parsers: { 20: (value: string) => BigInt(value) },
    });
  } catch (error) {
    lock?.release();
    throw error;
  }

  const statements = statementCache(db);
  const { query, exec } = queryable(db, statements);
  async function transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    try {
      return await db.transaction(async (tx) => {
        const q = queryable(db, statements, tx);
        try {
          return await fn(q);
        } finally {
          q.end();
        }
      });
    } catch (error) {
      throw translate(error);
    }
  }
  const connection: Connection = { query, exec, transaction };

  return {
    ...embeddedStoreOf(connection, async () => {
      try {
        if (!db.closed) await db.close();
      } finally {
        lock?.release();
      }
    }),
    // Backups (docs/backups.md): PGlite's transaction lock, then its query lock, as its own close()
    // takes them: no transaction is open and no statement runs while the directory is copied, so
    // the copy is what a crash at that instant would leave, and nothing waits on anything else.
    ...(options.dataDir === undefined
      ? {}
      : {
          snapshot: (into: string) => {
            const dataDir = options.dataDir as string;
            return db._runExclusiveTransaction(() =>
              db._runExclusiveQuery(async () => {
                const started = performance.now();
                copyDataDir(dataDir, into);
                return { pauseMs: performance.now() - started };
              }),
            );
          },
        }),
    // Exposed for the test harness, which dumps a migrated template once and reuses it.
    dump: () => db.dumpDataDir('none'),
    // Exposed for the durability test: fsync calls so far (0 in memory).
    fsyncs: () => fs?.syncs ?? 0,
  } as Store & { dump: () => Promise<Blob | File>; fsyncs: () => number };
}

/**
 * The `Store` around an embedded connection, on whichever thread PGlite runs: PGlite is one session,
 * so a dedicated connection is the store itself, and a ping is a query.
 */
export function embeddedStoreOf(connection: Connection, close: () => Promise<void>): Store {
  return {
    kind: 'embedded',
    ...connection,
    withConnection: (fn) => fn(connection),
    async ping() {
      await connection.query('SELECT 1');
    },
    close,
  };
}
