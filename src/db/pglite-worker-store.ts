import { Worker } from 'node:worker_threads';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { PendingCalls } from '../lib/pending-calls.ts';
import { StoreUnavailableError } from './db-errors.ts';
import { type EmbeddedStoreOptions, embeddedStoreOf } from './pglite-store.ts';
import type { Connection, Queryable, Row, Store } from './store.ts';

/**
 * The embedded store with PGlite on a worker thread (decision 0020). Same `Store` contract as
 * pglite-store.ts, which the worker runs: every call is a message to the worker and its reply;
 * rows come back by structured clone (bigint, Date and parsed JSON survive it as they are).
 *
 * Why: on the embedded store PGlite was ~70 % of the HTTP thread's time per create (profile in
 * docs/benchmarks.md), so HTTP parsing, the connectors' calls and the database took turns on one
 * core while the second core idled. On its own thread the database works while the HTTP thread
 * parses the next request.
 *
 * Transactions keep PGlite's semantics: `begin` returns once the worker holds PGlite's transaction
 * mutex; the queries of `fn` name that transaction; `end` commits (or rolls back after `fn` threw).
 * Other calls queue inside PGlite until the transaction ends, exactly as on the main thread.
 */

export interface WorkerOptions {
  dataDir?: string;
  loadDataDir?: ArrayBuffer;
}

export type Request =
  | { id: number; op: 'query'; tx?: number; text: string; params?: readonly unknown[] }
  | { id: number; op: 'exec'; tx?: number; script: string }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'dump' }
  | { id: number; op: 'snapshot'; into: string }
  | { id: number; op: 'close' };

export interface SerializedError {
  name: string;
  message: string;
  props: Record<string, unknown>;
  cause?: SerializedError;
}

export type Reply =
  { id: number; ok: true; value: unknown; fsyncs: number } | { id: number; ok: false; error: SerializedError; fsyncs: number };

type RequestBody = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

function revive(e: SerializedError): Error {
  const cause = e.cause === undefined ? undefined : revive(e.cause);
  const options = cause === undefined ? undefined : { cause };
  const error =
    e.name === 'StoreUnavailableError' ? new StoreUnavailableError(e.message, options) : new Error(e.message, options);
  // Own properties first (they include `name` for driver errors), then the name itself.
  Object.assign(error, e.props);
  if (error.name !== e.name) Object.defineProperty(error, 'name', { value: e.name, configurable: true, writable: true });
  return error;
}

const ENTRY = new URL('./pglite-worker-entry.js', import.meta.url);

export async function openEmbeddedStoreOnWorker(options: EmbeddedStoreOptions): Promise<Store> {
  // The lock is taken here, in the main thread: a second process is refused with DataDirInUseError
  // before any thread starts, as with the in-thread store.
  const lock: DataDirLock | undefined =
    options.dataDir === undefined ? undefined : await lockDataDir(options.dataDir, options.owner);
  const loadDataDir = options.loadDataDir === undefined ? undefined : await options.loadDataDir.arrayBuffer();
  const workerOptions: WorkerOptions = {
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(loadDataDir === undefined ? {} : { loadDataDir }),
  };
  const worker = new Worker(ENTRY, {
    workerData: workerOptions,
    // Not the process's own flags (`--input-type`, `-e` and the like are refused in a worker; tsx
    // is registered by the entry): only the profiler's, so a profiled server profiles this thread.
    execArgv: process.execArgv.filter((arg) => arg.startsWith('--cpu-prof')),
    ...(loadDataDir === undefined ? {} : { transferList: [loadDataDir] }),
  });

  // The calls in flight by id, the worker's ready message first (id 0): not a Map (decision 0035).
  const pending = new PendingCalls<{ resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let fsyncs = 0;
  let gone: Error | undefined;

  const ready = new Promise<void>((resolve, reject) => {
    pending.add({ resolve: () => resolve(), reject });
  });
  worker.on('message', (reply: Reply) => {
    fsyncs = reply.fsyncs;
    const waiter = pending.take(reply.id);
    if (waiter === undefined) return;
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(revive(reply.error));
  });
  // A worker that dies takes the database with it: every call in flight and every later call is
  // "unavailable" (503 at the edge), never a hang.
  const die = (cause: Error) => {
    if (gone !== undefined) return;
    gone = new StoreUnavailableError('embedded database unavailable', { cause });
    for (const waiter of pending.takeAll()) waiter.reject(gone);
  };
  worker.on('error', die);
  worker.on('exit', (code) => die(new Error(`PGlite is closed (worker exited with code ${code})`)));

  try {
    await ready;
  } catch (error) {
    await worker.terminate();
    lock?.release();
    throw error;
  }

  function call<T>(body: RequestBody, transfer: ArrayBuffer[] = []): Promise<T> {
    if (gone !== undefined) return Promise.reject(gone);
    return new Promise<T>((resolve, reject) => {
      const id = pending.add({ resolve: resolve as (v: unknown) => void, reject });
      try {
        worker.postMessage({ ...body, id }, transfer);
      } catch (error) {
        // Not sent (a parameter that cannot be cloned): no answer will come for this id.
        pending.take(id);
        reject(error as Error);
      }
    });
  }

  const queryable = (tx?: number): Queryable => ({
    query: <T extends Row>(text: string, params?: readonly unknown[]) =>
      call<T[]>({ op: 'query', text, ...(params === undefined ? {} : { params }), ...(tx === undefined ? {} : { tx }) }),
    exec: async (script: string) => {
      await call({ op: 'exec', script, ...(tx === undefined ? {} : { tx }) });
    },
  });

  async function transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const tx = await call<number>({ op: 'begin' });
    let result: T;
    try {
      result = await fn(queryable(tx));
    } catch (error) {
      await call({ op: 'end', tx, commit: false }).catch(() => undefined);
      throw error;
    }
    await call({ op: 'end', tx, commit: true });
    return result;
  }

  const connection: Connection = { ...queryable(), transaction };
  let closed = false;
  return {
    ...embeddedStoreOf(connection, async () => {
      if (closed) return;
      closed = true;
      try {
        if (gone === undefined) await call({ op: 'close' });
      } finally {
        await worker.terminate();
        lock?.release();
      }
    }),
    dump: async () => new Blob([await call<ArrayBuffer>({ op: 'dump' })]),
    // The copy runs on the database thread, under the store's session lock there (pglite-store.ts).
    ...(options.dataDir === undefined ? {} : { snapshot: (into: string) => call<{ pauseMs: number }>({ op: 'snapshot', into }) }),
    // The worker's fsync count as of its last reply: a commit's reply carries the count after it.
    fsyncs: () => fsyncs,
    // Exposed for the test that kills the thread.
    worker,
  } as Store & { dump: () => Promise<Blob>; fsyncs: () => number; worker: Worker };
}
