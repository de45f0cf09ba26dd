import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { webhookRetentionJob } from '../../src/jobs/webhook-retention.ts';
import { createWebhookTestbed, type WebhookTestbed } from '../harness/webhook-testbed.ts';

const DAY = 86_400_000;

describe('webhook retention', () => {
  let w: WebhookTestbed;
  before(async () => {
    w = await createWebhookTestbed();
  });
  after(() => w.close());

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await w.t.testStore.store.query<{ n: bigint }>(sql, params))[0]?.n ?? -1n);

  it('deletes succeeded deliveries after 30 days and events after 90, in bounded batches, never an event still being delivered', async () => {
    w.receiver.respond = (r) => (r.path === '/stuck' ? { status: 500 } : { status: 200 });
    await w.createEndpoint({ url: w.receiver.url('/fine'), enabled_events: ['payment.succeeded'] });
    await w.createEndpoint({ url: w.receiver.url('/stuck'), enabled_events: ['payment.failed'] });
    const delivered: string[] = [];
    for (let i = 0; i < 5; i += 1) delivered.push(await w.emit('payment.succeeded'));
    const stuck = await w.emit('payment.failed');
    await w.dispatcher.drain(); // 5 succeeded; the stuck one has a retry pending (and the dispatcher stops here)
    const queued = await w.emit('payment.expired'); // never fanned out
    const job = webhookRetentionJob({
      store: w.t.testStore.store,
      clock: w.clock,
      eventRetentionDays: 90,
      deliveryRetentionDays: 30,
      batchSize: 2,
    });

    w.clock.advance(29 * DAY);
    assert.equal(await job.run(), 0, 'nothing is old enough yet');
    assert.equal(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'"), 5);

    w.clock.advance(2 * DAY);
    assert.equal(await job.run(), 2, 'one bounded batch');
    assert.equal(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'"), 3);
    while ((await job.run()) > 0);
    assert.equal(await count("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'"), 0);
    assert.equal(
      await count('SELECT count(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id'),
      1,
      'attempts went with them',
    );
    assert.equal(await count('SELECT count(*) AS n FROM webhook_attempts'), 1);
    assert.equal(
      await count('SELECT count(*) AS n FROM events WHERE id = ANY($1::text[])', [delivered]),
      5,
      'events stay longer',
    );

    w.clock.advance(60 * DAY);
    let rounds = 0;
    while ((await job.run()) > 0) rounds += 1;
    assert.ok(rounds >= 3, 'five events in batches of two');
    assert.equal(await count('SELECT count(*) AS n FROM events WHERE id = ANY($1::text[])', [delivered]), 0);
    assert.equal(await count('SELECT count(*) AS n FROM events WHERE id = $1', [stuck]), 1, 'a pending delivery keeps its event');
    assert.equal(await count('SELECT count(*) AS n FROM events WHERE id = $1', [queued]), 1, 'a queued event is kept');

    // Once the stuck delivery ends (exhausted) and the queued event is fanned out, they go too.
    await w.runUntilSettled();
    while ((await job.run()) > 0);
    assert.equal(await count('SELECT count(*) AS n FROM events WHERE id = ANY($1::text[])', [[stuck, queued]]), 0);
    assert.equal(await count('SELECT count(*) AS n FROM webhook_deliveries'), 0, 'with their remaining deliveries');
  });
});
