import { fsyncSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/**
 * PGlite's Node filesystem with working fsync, so that a commit is on disk before it returns.
 *
 * Out of the box PGlite on Node is not durable against a power loss or a kernel crash, for three
 * separate reasons (read off @electric-sql/pglite 0.5.16, docs/reliability.md "Embedded store
 * durability"):
 *
 * 1. its start parameters include `-F` (fsync = off);
 * 2. Emscripten's NODEFS stream operations have no `fsync`, so an fsync() from PostgreSQL is a
 *    silent no-op even with fsync = on;
 * 3. Emscripten's `fdatasync()` (the default `wal_sync_method` on Linux) is a stub returning 0.
 *
 * Each write does reach the kernel synchronously (NODEFS calls `fs.writeSync`), so a committed
 * transaction already survives `kill -9` of the process; it just may still sit in the page cache.
 * Here we (1) start without `-F`, (2) give NODEFS an fsync that calls `fsyncSync` on the real
 * descriptor, and (3) set `wal_sync_method = fsync`, so PostgreSQL's own commit path (XLogFlush →
 * issue_xlog_fsync) flushes the WAL to the device before COMMIT returns, and checkpoints flush data
 * files and directories the way PostgreSQL does on a server. The cost is one fsync per committing
 * transaction, paid on the event loop (PGlite is synchronous WebAssembly anyway).
 */
export class DurableNodeFS extends NodeFS {
  /** fsync calls made for this database; a commit makes exactly one (tests and metrics read it). */
  syncs = 0;

  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const installFsync = (mod: { NODEFS: unknown }) => {
      const nodefs = mod.NODEFS as NodefsInternals;
      nodefs.stream_ops.fsync = (stream) => {
        this.syncs += 1;
        // A directory or special stream may have no host descriptor; there is nothing to flush.
        if (stream.nfd === undefined) return 0;
        // tryFSOperation turns a host error (EIO, ENOSPC) into an errno, so PostgreSQL sees the
        // fsync fail and PANICs instead of acknowledging a commit that may not be on disk.
        nodefs.tryFSOperation(() => fsyncSync(stream.nfd as number));
        return 0;
      };
    };
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [...(emscriptenOpts.preRun ?? []), installFsync],
      },
    };
  }
}

/** PGlite's start parameters with fsync on and a WAL sync method that reaches our fsync. */
export const DURABLE_START_PARAMS: readonly string[] = [
  ...PGlite.defaultStartParams.filter((param) => param !== '-F'),
  '-c',
  'fsync=on',
  '-c',
  'wal_sync_method=fsync',
];

/** The part of Emscripten's NODEFS this file touches (not in PGlite's public types). */
interface NodefsInternals {
  stream_ops: { fsync?: (stream: { nfd?: number }) => number };
  tryFSOperation(fn: () => void): void;
}
