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
 * One session, one statement or transaction at a time: a FIFO lock of our own, in place of PGlite's
 * `async-mutex` locks on the request path. A transaction holds it from BEGIN to its end, so a
 * statement outside it waits, as PGlite's transaction lock made it wait; scripts, the dump, the
 * backup's copy and close take it too. PGlite's locks are compiled to generators, and on Node 20
 * and 22 each call leaves garbage that only a full collection frees — with its serializer, a
 * Mark-Compact of the database thread every ~0.6 s under a paced GET load (decision 0029).
 */
type Exclusive = <T>(fn: () => Promise<T>) => Promise<T>;

function sessionLock(): Exclusive {
  let held = false;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next === undefined) held = false;
    else next(); // handed over: still held
  };
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (held) await new Promise<void>((resolve) => waiting.push(resolve));
    else held = true;
    try {
      return await fn();
    } finally {
      release();
    }
  };
}

/**
 * The embedded connection's statements: one statement through the prepared-statement cache;
 * scripts (`exec`, several statements, no parameters) through PGlite as they are. Outside a
 * transaction each takes the session lock (above); inside one, nothing: the cache sends each
 * statement as one `execProtocol` without `syncToFs`, a synchronous exchange with the backend that
 * nothing can interleave with.
 */
function queryable(db: PGlite, statements: StatementCache, exclusive: Exclusive, tx?: Transaction): Queryable & { end(): void } {
  let ended = false;
  const locked = <T>(fn: () => Promise<T>): Promise<T> => {
    if (ended) throw new Error('the transaction has ended');
    return tx === undefined ? exclusive(fn) : fn();
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
        await (tx === undefined ? exclusive(() => db.exec(script)) : tx.exec(script));
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
 * PGlite is one PostgreSQL session in this process: a transaction holds the session lock until it
 * ends, and plain statements wait for it. So transactions here must never wait on the network (and
 * they don't: connectors are called between transactions).
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
  const exclusive = sessionLock();
  const { query, exec } = queryable(db, statements, exclusive);
  async function transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    try {
      return await exclusive(() =>
        db.transaction(async (tx) => {
          const q = queryable(db, statements, exclusive, tx);
          try {
            return await fn(q);
          } finally {
            q.end();
          }
        }),
      );
    } catch (error) {
      throw translate(error);
    }
  }
  const connection: Connection = { query, exec, transaction };

  return {
    ...embeddedStoreOf(connection, async () => {
      try {
        await exclusive(async () => {
          if (!db.closed) await db.close();
        });
      } finally {
        lock?.release();
      }
    }),
    // Backups (docs/backups.md): under the session lock, which every path to PGlite takes, no
    // transaction is open and no statement runs while the directory is copied, so the copy is what a
    // crash at that instant would leave.
    ...(options.dataDir === undefined
      ? {}
      : {
          snapshot: (into: string) => {
            const dataDir = options.dataDir as string;
            return exclusive(async () => {
              const started = performance.now();
              copyDataDir(dataDir, into);
              return { pauseMs: performance.now() - started };
            });
          },
        }),
    // Exposed for the test harness, which dumps a migrated template once and reuses it.
    dump: () => exclusive(() => db.dumpDataDir('none')),
    // Exposed for the durability test: fsync calls so far (0 in memory).
    fsyncs: () => fs?.syncs ?? 0,
  } as Store & { dump: () => Promise<Blob | File>; fsyncs: () => number };
}

/**
 * The `Store` around an embedded connection, on whichever thread PGlite runs: PGlite is one session,
 * so a dedicated connection is the store itself, and a ping is a query.
 */
export function embeddedStoreOf(connection: Connection, close: () => Promise<void>): Store {
  // How long the store has had nothing in flight (decision 0034: deferrable jobs wait for a quiet
  // store). A transaction is in flight from its BEGIN to its end, statements between included.
  let inFlight = 0;
  let quietSince = performance.now();
  const settled = () => {
    inFlight -= 1;
    if (inFlight === 0) quietSince = performance.now();
  };
  const counted = <T>(call: Promise<T>): Promise<T> => {
    inFlight += 1;
    return call.finally(settled);
  };
  const counting: Connection = {
    query: (text, params) => counted(connection.query(text, params)),
    exec: (script) => counted(connection.exec(script)),
    transaction: (fn) => counted(connection.transaction(fn)),
  };
  return {
    kind: 'embedded',
    ...counting,
    withConnection: (fn) => fn(counting),
    async ping() {
      await counting.query('SELECT 1');
    },
    close,
    quietForMs: () => (inFlight > 0 ? 0 : performance.now() - quietSince),
  };
}
