import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { LOCK_QUEUED_EVENTS_SQL } from '../../src/modules/webhooks/delivery-repo.ts';
import { fanOut } from '../../src/modules/webhooks/delivery-service.ts';
import { type PlanNode, planOf } from '../harness/query-plan.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';

/**
 * The fan-out's cost must not grow with the events table: each round reads the events of its
 * batch and nothing else. (The first form of the lock query planned as a merge join that walked
 * `events_pkey` from its first entry, so every round read all of history.) Proven on the plan
 * PostgreSQL actually ran, on both stores: EXPLAIN ANALYZE counts the rows each node produced.
 */
/** Rows read from `relation` by every scan node of the plan (rows × loops). */
function rowsReadFrom(node: PlanNode, relation: string): number {
  const own = node['Relation Name'] === relation ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsReadFrom(child, relation), 0);
}

const HISTORY = 2_000;
const BATCH = 5;

describe('webhook fan-out query plan', () => {
  let t: TestStore;
  before(async () => {
    t = await openTestStore();
  });
  after(() => t.close());

  const insertEvents = (from: number, to: number) =>
    t.store.query(
      `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, api_version, payload, created_at)
       SELECT 'evt_' || lpad(g::text, 8, '0'), 'mer_plan', 'sandbox', 'payment.pending', 'payment', 'pay_' || g, 1,
              '2024-01-01', jsonb_build_object('data', jsonb_build_object('object', jsonb_build_object('pad', repeat('x', 800)))), now()
       FROM generate_series($1::int, $2::int) AS g`,
      [from, to],
    );

  it(`reads only the batch's events, with ${HISTORY} events of history before them`, async () => {
    await insertEvents(1, HISTORY);
    let fanned = 0;
    for (;;) {
      const n = await fanOut({ store: t.store, clock: systemClock }, 100);
      if (n === 0) break;
      fanned += n;
    }
    assert.equal(fanned, HISTORY, 'the history was fanned out and left the queue');

    await insertEvents(HISTORY + 1, HISTORY + BATCH);
    const plan = await t.store.transaction((tx) =>
      planOf(tx, { text: LOCK_QUEUED_EVENTS_SQL, params: [100] }, { analyze: true }),
    );
    assert.equal(rowsReadFrom(plan, 'webhook_fanout_queue'), BATCH, 'the batch was locked');
    const eventsRead = rowsReadFrom(plan, 'events');
    assert.ok(eventsRead <= BATCH, `the round read ${eventsRead} events for a batch of ${BATCH}`);
  });
});
