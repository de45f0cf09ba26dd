import { assert } from '../lib/assert.ts';
import {
  claimReady,
  type DeliveryDeps,
  type DeliveryReport,
  fanOut,
  type Finished,
  recordDeliveries,
  sendDelivery,
} from '../modules/webhooks/delivery-service.ts';

/**
 * The webhook dispatcher: a loop that fans queued events out into deliveries, claims due
 * deliveries under leases and sends them, with bounded concurrency — at most `concurrency` sends
 * in flight in this process, and at most `perTargetConcurrency` to any one receiver, so one
 * slow merchant does not hold up the others. Finished sends are recorded by group commit: what
 * finishes while one batch is being written goes into the next transaction, so the database
 * work per delivery shrinks as the load grows (docs/webhooks.md, "Operating the dispatcher"). Any number of dispatchers may run against one
 * PostgreSQL database (in API processes and in `npx tributary worker`s); they share work through
 * `SKIP LOCKED` claims and recover each other's leases (docs/decisions/0013-webhooks-outbox.md).
 */
export interface DispatcherOptions extends DeliveryDeps {
  concurrency: number;
  perTargetConcurrency: number;
  /** Idle wait between polls when nothing was due. */
  pollIntervalMs: number;
  fanOutBatchSize?: number;
}

export interface StartedSend {
  deliveryId: string;
  targetKey: string;
  /** Settles when the attempt is recorded. */
  done: Promise<DeliveryReport | undefined>;
}

export interface Dispatcher {
  /** One round: fan out one batch, claim what fits in the free slots and start sending it. */
  runOnce(): Promise<{ fannedOut: number; claimed: number; started: StartedSend[] }>;
  /** Rounds until nothing is queued, due or in flight (tests and the CLI's one-shot use). */
  drain(maxRounds?: number): Promise<DeliveryReport[]>;
  start(): void;
  /** Stops claiming and waits for the sends in flight (each bounded by its timeout). */
  stop(): Promise<void>;
}

/**
 * A wait that ends after `ms` or at `wake()`, whichever comes first. A wake while nobody waits is
 * kept for the next wait, so news that arrives during a round is never slept through.
 */
function waiter(): { pause(ms: number): Promise<void>; wake(): void } {
  let end: (() => void) | undefined;
  let woken = false;
  return {
    pause: (ms) =>
      new Promise((resolve) => {
        if (woken) {
          woken = false;
          resolve();
          return;
        }
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          end = undefined;
          resolve();
        }
        end = done;
      }),
    wake: () => {
      if (end === undefined) woken = true;
      else end();
    },
  };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const SCAN_FACTOR = 8;
/** How long the claim loop lets sends finish before claiming fewer than a quarter of its slots. */
const CLAIM_GATHER_MS = 5;
/** How long a finished send waits for others still on the wire to share its recording transaction. */
const RECORD_GATHER_MS = 2;
/** While events keep arriving, the fan-out looks again after this (idle: the poll interval). */
const BUSY_POLL_MS = 25;
/** Most finished deliveries written by one recording transaction. */
const MAX_RECORD_BATCH = 256;

export function createDispatcher(o: DispatcherOptions): Dispatcher {
  assert(o.leaseMs > o.timeoutMs + o.connectTimeoutMs, 'the lease must outlast a send, or live sends get duplicated');
  const fanOutBatchSize = o.fanOutBatchSize ?? 200;
  const inFlight = new Map<string, number>();
  /** Every claimed delivery until its attempt is recorded (drain and stop wait for these). */
  const running = new Set<Promise<void>>();
  let sending = 0;
  const toRecord: { finished: Finished; resolve: (r: DeliveryReport) => void; reject: (e: unknown) => void }[] = [];
  let recording = false;
  const reports: DeliveryReport[] = [];
  let collecting = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  const claimWait = waiter();
  const fanOutWait = waiter();
  const minClaim = Math.max(1, Math.floor(o.concurrency / 4));

  // At most `concurrency` sends on the wire, and at most as many again waiting to be recorded.
  const free = () => Math.min(o.concurrency - sending, 2 * o.concurrency - running.size);

  async function recordQueued(): Promise<void> {
    recording = true;
    try {
      while (toRecord.length > 0) {
        const batch = toRecord.splice(0, MAX_RECORD_BATCH);
        try {
          const reports = await recordDeliveries(
            o,
            batch.map((b) => b.finished),
          );
          batch.forEach((b, i) => {
            const report = reports[i];
            assert(report !== undefined, 'a report for every recorded delivery');
            b.resolve(report);
          });
        } catch (error) {
          for (const b of batch) b.reject(error);
        }
      }
    } finally {
      recording = false;
    }
  }

  function record(finished: Finished): Promise<DeliveryReport> {
    return new Promise((resolve, reject) => {
      toRecord.push({ finished, resolve, reject });
      if (recording) return;
      recording = true;
      // Other sends still on the wire finish within a moment: gather them into this transaction.
      if (sending === 0) void recordQueued();
      else setTimeout(() => void recordQueued(), RECORD_GATHER_MS);
    });
  }

  /** Sends one delivery; its slots are free again once the receiver answered, before recording. */
  async function sendAndRecord(item: Parameters<typeof sendDelivery>[1]): Promise<DeliveryReport> {
    const key = item.claim.targetKey;
    let finished: Finished;
    try {
      finished = await sendDelivery(o, item);
    } finally {
      sending -= 1;
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left <= 0) inFlight.delete(key);
      else inFlight.set(key, left);
      claimWait.wake();
    }
    return record(finished);
  }

  async function runOnce(): Promise<{ fannedOut: number; claimed: number; started: StartedSend[] }> {
    const fannedOut = await fanOut(o, fanOutBatchSize);
    return { fannedOut, ...(await claimAndStart()) };
  }

  async function claimAndStart(): Promise<{ claimed: number; started: StartedSend[] }> {
    const slots = free();
    if (slots <= 0 || stopping) return { claimed: 0, started: [] };
    const ready = await claimReady(o, {
      limit: slots,
      perTargetLimit: o.perTargetConcurrency,
      inFlight,
      scanLimit: Math.max(100, slots * SCAN_FACTOR),
    });
    const started: StartedSend[] = [];
    for (const item of ready) {
      const key = item.claim.targetKey;
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      sending += 1;
      const done = sendAndRecord(item).then(
        (report) => {
          if (collecting) reports.push(report);
          return report;
        },
        (error: unknown) => {
          // The lease expires and the delivery is tried again: at-least-once, never lost.
          o.log.error({ err: error, delivery_id: item.claim.id }, 'webhook delivery could not be recorded');
          return undefined;
        },
      );
      started.push({ deliveryId: item.claim.id, targetKey: key, done });
      const p: Promise<void> = done.then(() => {
        running.delete(p);
        claimWait.wake();
      });
      running.add(p);
    }
    return { claimed: ready.length, started };
  }

  async function drain(maxRounds = 1000): Promise<DeliveryReport[]> {
    collecting = true;
    reports.length = 0;
    try {
      for (let round = 0; round < maxRounds; round += 1) {
        // A send running at any point of the round may hold a slot the claim had to skip, so the
        // round is only idle when nothing ran before or after the claim. (Checking only after the
        // claim missed sends that finished while the claim query ran: drain() then returned with
        // deliveries still due.)
        const busyBefore = running.size > 0;
        const { fannedOut, claimed } = await runOnce();
        const busy = busyBefore || running.size > 0;
        await Promise.all([...running]);
        if (fannedOut === 0 && claimed === 0 && !busy) return [...reports];
      }
      throw new Error(`dispatcher did not drain within ${maxRounds} rounds`);
    } finally {
      collecting = false;
    }
  }

  /**
   * Fan-out and claiming run as two loops, so that neither waits for the other's queries: new
   * events become deliveries while sends are claimed, and a fan-out wakes the claim loop.
   */
  async function fanOutLoop(): Promise<void> {
    while (!stopping) {
      let full = false;
      let found = false;
      try {
        const n = await fanOut(o, fanOutBatchSize);
        if (n > 0) claimWait.wake();
        found = n > 0;
        full = n >= fanOutBatchSize;
      } catch (error) {
        o.log.warn({ err: error }, 'webhook fan-out failed; retrying after the poll interval');
      }
      // Full: go again at once. Found some: events are arriving, look again soon (latency is the
      // wait between polls). Found none: back to the poll interval.
      if (!stopping && !full) await fanOutWait.pause(found ? Math.min(BUSY_POLL_MS, o.pollIntervalMs) : o.pollIntervalMs);
    }
  }

  async function claimLoop(): Promise<void> {
    while (!stopping) {
      // A claim costs about the same for one delivery as for thirty: while sends are finishing
      // and few slots are free, let a few more finish first (briefly, so that slots held by a
      // slow receiver never hold up the rest).
      if (sending > 0 && free() < minClaim) await delay(CLAIM_GATHER_MS);
      let idle = true;
      try {
        idle = (await claimAndStart()).claimed === 0;
      } catch (error) {
        o.log.warn({ err: error }, 'webhook dispatcher round failed; retrying after the poll interval');
      }
      if (stopping) break;
      // Busy and with free slots: go again at once. Idle, or full: wait for the poll interval, a
      // send to finish or a fan-out, whichever comes first.
      if (idle || free() <= 0) await claimWait.pause(o.pollIntervalMs);
    }
  }

  async function run(): Promise<void> {
    await Promise.all([fanOutLoop(), claimLoop()]);
  }

  return {
    runOnce,
    drain,
    start() {
      if (loop !== undefined) return;
      stopping = false;
      loop = run();
    },
    async stop() {
      stopping = true;
      claimWait.wake();
      fanOutWait.wake();
      await loop;
      loop = undefined;
      await Promise.allSettled([...running]);
    },
  };
}
