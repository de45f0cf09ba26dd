import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import { deleteOldEvents, deleteSucceededDeliveries } from '../modules/webhooks/delivery-repo.ts';
import type { Job } from './job-runner.ts';

/**
 * Retention of the outbox, in bounded batches (each run deletes at most `batchSize` rows of each
 * kind; the job runner repeats a full batch a few times, then waits for the next tick):
 *
 * - succeeded deliveries (and their attempts) `deliveryRetentionDays` after they succeeded;
 * - events `eventRetentionDays` after they happened, with whatever deliveries they still have
 *   (failed and canceled ones stay visible that long). An event still queued or with a pending
 *   delivery is never deleted: retention cannot lose an event that is still being delivered.
 */
export function webhookRetentionJob(deps: {
  store: Store;
  clock: Clock;
  eventRetentionDays: number;
  deliveryRetentionDays: number;
  batchSize?: number;
}): Job {
  const batchSize = deps.batchSize ?? 500;
  const dayMs = 86_400_000;
  return {
    name: 'webhook-retention',
    intervalMs: 10 * 60_000,
    batchSize,
    async run() {
      const now = deps.clock.now().getTime();
      const deliveries = await deleteSucceededDeliveries(
        deps.store,
        new Date(now - deps.deliveryRetentionDays * dayMs),
        batchSize,
      );
      const eventCutoffMs = now - deps.eventRetentionDays * dayMs;
      // The smallest event id of the cutoff instant: time prefix, then the lowest random part.
      const idBefore = `${newId('event', eventCutoffMs).slice(0, 'evt_'.length + 10)}${'0'.repeat(16)}`;
      const events = await deleteOldEvents(deps.store, new Date(eventCutoffMs), idBefore, batchSize);
      return Math.max(deliveries, events);
    },
  };
}
