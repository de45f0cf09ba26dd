import { parentPort, workerData } from 'node:worker_threads';
import { PendingCalls } from '../lib/pending-calls.ts';
import { openLockedEmbeddedStore } from './pglite-store.ts';
import type { Queryable, Store } from './store.ts';
import type { Reply, Request, SerializedError, WorkerOptions } from './pglite-worker-store.ts';

/**
 * The embedded database's own thread (decision 0020): PGlite — its WebAssembly PostgreSQL, its
 * protocol parsing and its fsync per commit — runs here, so the HTTP thread only sends requests
 * and receives rows. This side keeps no state but the open transactions; the main thread holds the
 * data-directory lock, and a reply is sent only after PGlite has answered (a commit only after its
 * fsync), so what the main thread acknowledges is on disk exactly as before.
 */
const port = parentPort;
if (port === null) throw new Error('pglite-worker.ts runs as a worker thread');
const options = workerData as WorkerOptions;

const ROLLBACK = Symbol('rollback');

/** How the main thread ends a transaction: commit or not, and the request id to answer. */
interface EndRequest {
  commit: boolean;
  id: number;
}

interface OpenTransaction {
  tx: Queryable;
  end: (request: EndRequest) => void;
}

/** By the id the main thread names them with: not a Map (decision 0035). */
const transactions = new PendingCalls<OpenTransaction>();
let store: Store | undefined;

function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), props: {} };
  const props: Record<string, unknown> = {};
  // Driver errors carry their SQLSTATE and constraint as own properties (db-errors.ts reads them).
  for (const [k, v] of Object.entries(error)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) props[k] = v;
  }
  const cause = (error as { cause?: unknown }).cause;
  return {
    name: error.name,
    message: error.message,
    props,
    ...(cause instanceof Error ? { cause: serializeError(cause) } : {}),
  };
}

const fsyncs = () => (store as (Store & { fsyncs?: () => number }) | undefined)?.fsyncs?.() ?? 0;
const ok = (id: number, value: unknown, transfer: ArrayBuffer[] = []) =>
  port.postMessage({ id, ok: true, value, fsyncs: fsyncs() } satisfies Reply, transfer);
const fail = (id: number, error: unknown) =>
  port.postMessage({ id, ok: false, error: serializeError(error), fsyncs: fsyncs() } satisfies Reply);

function target(tx: number | undefined): Queryable {
  if (tx === undefined) {
    if (store === undefined) throw new Error('PGlite is closed');
    return store;
  }
  const open = transactions.get(tx);
  if (open === undefined) throw new Error(`no open transaction ${tx}`);
  return open.tx;
}

function begin(id: number): void {
  if (store === undefined) {
    fail(id, new Error('PGlite is closed'));
    return;
  }
  let txId: number | undefined;
  let ended: EndRequest | undefined;
  // PGlite's transaction() holds its mutex from BEGIN to COMMIT: other requests (plain queries and
  // other transactions) wait inside PGlite, as they do when it runs on the main thread.
  store
    .transaction(async (tx) => {
      ended = await new Promise<EndRequest>((end) => {
        txId = transactions.add({ tx, end });
        ok(id, txId);
      });
      if (!ended.commit) throw ROLLBACK;
    })
    .then(
      () => ok((ended as EndRequest).id, null),
      (error: unknown) => {
        if (ended === undefined)
          fail(id, error); // BEGIN itself failed
        else if (error === ROLLBACK) ok(ended.id, null);
        else fail(ended.id, error); // COMMIT failed
      },
    )
    .finally(() => {
      if (txId !== undefined) transactions.take(txId);
    });
}

async function handle(request: Request): Promise<void> {
  const { id } = request;
  try {
    switch (request.op) {
      case 'query':
        ok(id, await target(request.tx).query(request.text, request.params));
        return;
      case 'exec':
        await target(request.tx).exec(request.script);
        ok(id, null);
        return;
      case 'begin':
        begin(id);
        return;
      case 'end': {
        const open = transactions.get(request.tx);
        if (open === undefined) throw new Error(`no open transaction ${request.tx}`);
        open.end({ commit: request.commit, id });
        return;
      }
      case 'dump': {
        const blob = await (store as Store & { dump: () => Promise<Blob> }).dump();
        const bytes = await blob.arrayBuffer();
        ok(id, bytes, [bytes]);
        return;
      }
      case 'snapshot': {
        if (store?.snapshot === undefined) throw new Error('this store has no data directory to copy');
        ok(id, await store.snapshot(request.into));
        return;
      }
      case 'close':
        await store?.close();
        store = undefined;
        ok(id, null);
        return;
    }
  } catch (error) {
    fail(id, error);
  }
}

try {
  store = await openLockedEmbeddedStore(
    {
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(options.loadDataDir === undefined ? {} : { loadDataDir: new Blob([options.loadDataDir]) }),
    },
    undefined,
  );
  port.on('message', (request: Request) => void handle(request));
  port.postMessage({ id: 0, ok: true, value: 'ready', fsyncs: 0 } satisfies Reply);
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: serializeError(error), fsyncs: 0 } satisfies Reply);
}
