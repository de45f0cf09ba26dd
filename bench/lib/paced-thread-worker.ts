import { parentPort, workerData } from 'node:worker_threads';
import { pace, type Pending } from './paced-load.ts';
import { type Collection, tcpTimeouts, watchOwnGc } from './tail.ts';
import type { PacedThreadInput, PacedThreadOutput } from './paced-thread.ts';

// The generator's side of runPacedLoadOnOwnThread: the requests arrive as bytes, built before the
// window by the bench's thread; this thread only paces them, reads the answers and records.
const input = workerData as PacedThreadInput;
const bytes = Buffer.from(input.bytes);
/**
 * `next` for pace(): request `from + k` of the built ones for the k-th due, refusing to run past
 * `count` of them; `onBody`, where given, receives the answer of the k-th.
 */
function built(from: number, count: number, onBody?: (k: number, status: number, body: string) => void) {
  let k = 0;
  return (dueMs: number): Pending => {
    if (k >= count) throw new Error(`paced thread: more requests due than the ${count} built`);
    const i = k++;
    const request = bytes.subarray(input.offsets[from + i], input.offsets[from + i + 1]);
    return onBody === undefined ? { dueMs, bytes: request } : { dueMs, bytes: request, onBody: (s, b) => onBody(i, s, b) };
  };
}
if (input.warmupSeconds > 0) {
  await pace({ ...input.pace, seconds: input.warmupSeconds, next: built(0, input.warmupRequests), onAnswer: () => undefined });
}
const n = input.offsets.length - 1 - input.warmupRequests;
const due = new Float64Array(n);
const ms = new Float64Array(n);
const statuses = new Uint16Array(n);
const bodies: string[] = [];
const bodyStatuses = new Uint16Array(input.wantBodies ? n : 0);
let answered = 0;
const late: Collection[] = [];
const tcpBefore = tcpTimeouts();
const gc = watchOwnGc();
const windowStartEpochMs = performance.timeOrigin + performance.now();
const { failed } = await pace({
  ...input.pace,
  next: built(
    input.warmupRequests,
    n,
    input.wantBodies
      ? (k, status, body) => {
          bodies[k] = body;
          bodyStatuses[k] = status;
        }
      : undefined,
  ),
  onAnswer: (status, latencyMs, dueInWindowMs) => {
    due[answered] = dueInWindowMs;
    ms[answered] = latencyMs;
    statuses[answered] = status;
    answered += 1;
  },
  onLate: (at, ms) => late.push({ at, ms }),
});
const tcpAfter = tcpTimeouts();
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
  late,
  tcpTimeouts: tcpBefore === null || tcpAfter === null ? null : tcpAfter - tcpBefore,
  windowStartEpochMs,
};
parentPort?.postMessage(output, [due.buffer, ms.buffer, statuses.buffer]);
