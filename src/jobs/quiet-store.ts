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
 * Waits until the store has been quiet for STORE_QUIET_MS or `deadline` (performance.now() clock)
 * passes, looking again when quiet could first be reached. True when the store was quiet, false when
 * time ran out; true at once on a store that does not count (PostgreSQL: its own processes do such
 * work beside the requests).
 */
export async function quietUntil(store: Pick<Store, 'quietForMs'>, deadline: number): Promise<boolean> {
  if (store.quietForMs === undefined) return true;
  for (;;) {
    const quiet = store.quietForMs();
    if (quiet >= STORE_QUIET_MS) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.ceil(Math.min(left, Math.max(10, STORE_QUIET_MS - quiet))));
  }
}
