import { Worker } from 'node:worker_threads';
import type { LoadOptions, LoadResult } from './load.ts';
import { PacedTally, type PaceOptions, paceTarget, requestBytes, requestsOfWindow } from './paced-load.ts';
import type { Collection, WindowWitnesses } from './tail.ts';

/**
 * The paced load on a thread of its own (issue 27, eleventh session). The bench's own thread holds
 * everything a run has gathered; after a few minutes of scenarios its heap was collected in full
 * every ~1.3 s while a paced window ran (`--trace-gc` on the bench process: a Mark-Compact with
 * 5–12 ms pauses and up to 16 ms incremental steps each time), and the largest clusters of the
 * paced GET's slowest 1 % were due exactly then. A worker has a heap of its own that holds only
 * the window: the requests are built on the bench's thread before the window (so the request
 * builders, which are closures, stay there), paced and read on the worker, and each answer's
 * body, where a request wants it, goes back to its builder's `onResponse` after the window.
 */
export interface PacedThreadInput {
  pace: Omit<PaceOptions, 'next' | 'onAnswer'>;
  /** A warm-up at the same rate before the window, on the same thread (its JIT and heap warm): the first `warmupRequests` of `bytes`. */
  warmupSeconds: number;
  warmupRequests: number;
  /** Every request of the window, back to back; request k is bytes[offsets[k] .. offsets[k + 1]). */
  bytes: ArrayBuffer;
  offsets: Uint32Array;
  wantBodies: boolean;
}

export interface PacedThreadOutput {
  answered: number;
  failed: number;
  /** Per answer, in the order answered: due time in the window (ms), latency (ms), status. */
  due: Float64Array;
  ms: Float64Array;
  statuses: Uint16Array;
  /** By request index in the window (after the warm-up's), where wanted: the body and status of its answer. */
  bodies: string[];
  bodyStatuses: Uint16Array;
  /** The generator thread's own collections in the window. */
  ownGc: Collection[];
  /** Its loop late by LATE_MS or more, and the machine's TCP timeouts in the window (tail.ts). */
  late: Collection[];
  tcpTimeouts: number | null;
  /** When the window opened (epoch ms; a due time of 0), to place the server's own events on its clock. */
  windowStartEpochMs: number;
}

const ENTRY = new URL('./paced-thread-entry.js', import.meta.url);

/**
 * A paced window on its own thread, after a warm-up of `warmupSeconds` at the same rate on that
 * thread (answers of the warm-up are not counted; its requests' bodies are not read).
 */
export async function runPacedLoadOnOwnThread(
  options: LoadOptions & { rate: number; warmupSeconds: number },
): Promise<LoadResult & WindowWitnesses & { windowStartEpochMs: number }> {
  const { hostHeader, ...pace } = paceTarget(options);
  const warmupRequests = options.warmupSeconds > 0 ? requestsOfWindow(options.warmupSeconds, options.rate) + 1 : 0;
  const n = warmupRequests + requestsOfWindow(options.seconds, options.rate) + 1;
  const wantBodies = options.requests.some((r) => r.onResponse !== undefined);
  const built: Buffer[] = [];
  const offsets = new Uint32Array(n + 1);
  // The window's requests' builders and contexts, kept only where an answer's body goes back.
  const answers: { spec: (typeof options.requests)[number]; context: Record<string, unknown> }[] = [];
  for (let k = 0; k < n; k += 1) {
    const spec = options.requests[k % options.requests.length];
    if (spec === undefined) throw new Error('runPacedLoadOnOwnThread: no requests');
    const context: Record<string, unknown> = {};
    const bytes = requestBytes(spec, hostHeader, context);
    built.push(bytes);
    offsets[k + 1] = (offsets[k] as number) + bytes.length;
    if (wantBodies && k >= warmupRequests) answers.push({ spec, context });
  }
  // One copy into a buffer of its own, transferred to the thread (not Buffer.concat's, then a slice of it).
  const bytes = new ArrayBuffer(offsets[n] as number);
  const view = new Uint8Array(bytes);
  built.forEach((b, k) => view.set(b, offsets[k]));
  const input: PacedThreadInput = {
    pace,
    warmupSeconds: options.warmupSeconds,
    warmupRequests,
    bytes,
    offsets,
    wantBodies,
  };
  const worker = new Worker(ENTRY, { workerData: input, transferList: [bytes], execArgv: [] });
  const output = await new Promise<PacedThreadOutput>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`paced load thread exited with ${code} before its results`)));
  });
  await worker.terminate();

  const tally = new PacedTally(options);
  for (let i = 0; i < output.answered; i += 1) {
    tally.record(output.statuses[i] as number, output.ms[i] as number, output.due[i] as number);
  }
  output.bodies.forEach((body, k) => {
    const a = answers[k];
    a?.spec.onResponse?.(output.bodyStatuses[k] as number, body, a.context);
  });
  return {
    ...tally.result(output.failed),
    ownGc: output.ownGc,
    late: output.late,
    tcpTimeouts: output.tcpTimeouts,
    windowStartEpochMs: output.windowStartEpochMs,
  };
}
