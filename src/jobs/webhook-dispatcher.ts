import { assert } from '../lib/assert.ts';
import { claimReady, type DeliveryDeps, deliver, type DeliveryReport, fanOut } from '../modules/webhooks/delivery-service.ts';

/**
 * The webhook dispatcher: a loop that fans queued events out into deliveries, claims due
 * deliveries under leases and sends them, with bounded concurrency — at most `concurrency` sends
 * in flight in this process, and at most `perTargetConcurrency` to any one receiver, so one
 * slow merchant does not hold up the others. Any number of dispatchers may run against one
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

const SCAN_FACTOR = 8;

export function createDispatcher(o: DispatcherOptions): Dispatcher {
  assert(o.leaseMs > o.timeoutMs + o.connectTimeoutMs, 'the lease must outlast a send, or live sends get duplicated');
  const fanOutBatchSize = o.fanOutBatchSize ?? 200;
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const reports: DeliveryReport[] = [];
  let collecting = false;
  let stopping = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;

  const free = () => o.concurrency - running.size;

  async function runOnce(): Promise<{ fannedOut: number; claimed: number; started: StartedSend[] }> {
    const fannedOut = await fanOut(o, fanOutBatchSize);
    const slots = free();
    if (slots <= 0 || stopping) return { fannedOut, claimed: 0, started: [] };
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
      const done = deliver(o, item).then(
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
        const left = (inFlight.get(key) ?? 1) - 1;
        if (left <= 0) inFlight.delete(key);
        else inFlight.set(key, left);
        running.delete(p);
        wake?.();
      });
      running.add(p);
    }
    return { fannedOut, claimed: ready.length, started };
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

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    while (!stopping) {
      let idle = true;
      try {
        const { fannedOut, claimed } = await runOnce();
        idle = fannedOut === 0 && claimed === 0;
      } catch (error) {
        o.log.warn({ err: error }, 'webhook dispatcher round failed; retrying after the poll interval');
      }
      if (stopping) break;
      // Busy and with free slots: go again at once. Idle, or full: wait for the poll interval or
      // for a send to finish, whichever comes first.
      if (idle || free() <= 0) await pause(o.pollIntervalMs);
    }
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
      wake?.();
      await loop;
      loop = undefined;
      await Promise.allSettled([...running]);
    },
  };
}
