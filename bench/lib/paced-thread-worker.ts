import { parentPort, workerData } from 'node:worker_threads';
import { pace, type Pending } from './paced-load.ts';
import { watchOwnGc } from './tail.ts';
import type { PacedThreadInput, PacedThreadOutput } from './paced-thread.ts';

// The generator's side of runPacedLoadOnOwnThread: the requests arrive as bytes, built before the
// window by the bench's thread; this thread only paces them, reads the answers and records.
const input = workerData as PacedThreadInput;
const bytes = Buffer.from(input.bytes);
const requestAt = (k: number) => bytes.subarray(input.offsets[k], input.offsets[k + 1]);
if (input.warmupSeconds > 0) {
  let warm = 0;
  await pace({
    ...input.pace,
    seconds: input.warmupSeconds,
    next: (dueMs): Pending => {
      if (warm >= input.warmupRequests)
        throw new Error(`paced thread: more warm-up requests due than the ${input.warmupRequests} built`);
      return { dueMs, bytes: requestAt(warm++) };
    },
    onAnswer: () => undefined,
  });
}
const first = input.warmupRequests;
const n = input.offsets.length - 1 - first;
const due = new Float64Array(n);
const ms = new Float64Array(n);
const statuses = new Uint16Array(n);
const bodies: string[] = [];
const bodyStatuses = new Uint16Array(input.wantBodies ? n : 0);
let answered = 0;
let issued = 0;
const gc = watchOwnGc();
const { failed } = await pace({
  ...input.pace,
  next: (dueMs): Pending => {
    const k = issued++;
    if (k >= n) throw new Error(`paced thread: more requests due than the ${n} built`);
    const request = requestAt(first + k);
    if (!input.wantBodies) return { dueMs, bytes: request };
    return {
      dueMs,
      bytes: request,
      onBody: (status, body) => {
        bodies[k] = body;
        bodyStatuses[k] = status;
      },
    };
  },
  onAnswer: (status, latencyMs, dueInWindowMs) => {
    due[answered] = dueInWindowMs;
    ms[answered] = latencyMs;
    statuses[answered] = status;
    answered += 1;
  },
});
// The last collections' entries are delivered on a later turn of the loop.
await new Promise((resolve) => setImmediate(resolve));
const output: PacedThreadOutput = {
  answered,
  failed,
  due,
  ms,
  statuses,
  bodies,
  bodyStatuses,
  ownGc: gc.stop(),
};
parentPort?.postMessage(output, [due.buffer, ms.buffer, statuses.buffer]);
