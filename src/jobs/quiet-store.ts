import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../db/store.ts';

/**
 * Deferrable work on the embedded store waits for a quiet moment (decision 0034). PGlite is one
 * backend on one database thread: every request waits while a statement runs, and a backlog built
 * behind a long one drains only at the store's spare rate. Work that can be done a little later —
 * the maintenance pass (the embedded store's autovacuum), the overview's recount of a day — waits
 * until the store has had no call in flight this long (`Store.quietForMs`).
 */
export const STORE_QUIET_MS = 250;

/**
 * Waits until `quietForMs()` reaches `quietMs` or `deadline` (performance.now() clock) passes, looking
 * again when quiet could first be reached. True when the store was quiet, false when time ran out.
 */
export async function waitForQuiet(
  quietForMs: () => number,
  quietMs: number,
  deadline: number,
  pause: (ms: number) => Promise<unknown> = sleep,
): Promise<boolean> {
  for (;;) {
    const quiet = quietForMs();
    if (quiet >= quietMs) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await pause(Math.ceil(Math.min(left, Math.max(10, quietMs - quiet))));
  }
}

/**
 * A store quiet for STORE_QUIET_MS, waiting at most `maxWaitMs`; true at once on a store that does
 * not count (PostgreSQL: its own processes do such work beside the requests).
 */
export function quietStore(store: Store, maxWaitMs: number): Promise<boolean> {
  const quietForMs = store.quietForMs?.bind(store);
  if (quietForMs === undefined) return Promise.resolve(true);
  return waitForQuiet(quietForMs, STORE_QUIET_MS, performance.now() + maxWaitMs);
}
