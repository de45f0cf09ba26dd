import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, quickStartBody } from './harness/api-client.ts';
import { withStoreQuery } from './harness/create-load.ts';
import { freshDatabase } from './harness/databases.ts';
import { knobs } from './harness/knobs.ts';
import {
  createMerchant,
  type Merchant,
  newSecret,
  type ServerProcess,
  startServer,
  type StoreTarget,
} from './harness/processes.ts';

/**
 * Scenario 3: 200 concurrent creates with one Idempotency-Key (and one body) split across two API
 * processes on one PostgreSQL database → exactly one payment. Every answer is that payment's 201
 * (first or replayed) or 409 idempotency_request_in_progress with Retry-After; a retry after the
 * storm replays the same payment.
 */
describe('same-key creates across two processes (PostgreSQL)', () => {
  let target: StoreTarget;
  let merchant: Merchant;
  const servers: ServerProcess[] = [];
  let dropDb: () => Promise<void> = async () => undefined;

  before(async () => {
    const db = await freshDatabase('rel_samekey');
    dropDb = db.drop;
    target = { kind: 'postgres', url: db.url };
    const secret = newSecret();
    merchant = await createMerchant(target, secret, 'Same key');
    servers.push(...(await Promise.all([startServer({ target, secret }), startServer({ target, secret })])));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.terminate().catch(() => s.kill9())));
    await dropDb();
  });

  for (let round = 1; round <= knobs.sameKeyRounds; round += 1) {
    it(`round ${round}: ${knobs.sameKeyRequests} concurrent requests make one payment`, async () => {
      const key = `same-key-${round}-${Date.now().toString(36)}`;
      const body = quickStartBody(key);
      const fire = (i: number) =>
        call((servers[i % servers.length] as ServerProcess).url, 'POST', '/payment/create', {
          key: merchant.sandboxKey,
          body,
          headers: { 'idempotency-key': key },
          timeoutMs: 30_000,
        });
      const answers = await Promise.all(Array.from({ length: knobs.sameKeyRequests }, (_, i) => fire(i)));
      const ids = new Set<string>();
      const tally = new Map<string, number>();
      for (const a of answers) {
        assert.ok(a.ok, `every request was answered (${a.ok ? '' : a.error})`);
        const parsed = a.json<{ id?: string; code?: string }>();
        const label = `${a.status} ${parsed.code ?? ''}`.trim();
        tally.set(label, (tally.get(label) ?? 0) + 1);
        if (a.status === 201) ids.add(String(parsed.id));
        else {
          assert.equal(a.status, 409, `unexpected answer ${a.status} ${a.text.slice(0, 200)}`);
          assert.equal(parsed.code, 'idempotency_request_in_progress');
          assert.ok(a.headers.get('retry-after') !== null, '409 carries Retry-After');
        }
      }
      console.log(`# round ${round}: ${[...tally.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')}`);
      assert.ok(ids.size <= 1, `one payment id across all 201s, got ${[...ids].join(', ')}`);

      // After the storm the first request has finished: a retry replays the one payment.
      let replay = await fire(0);
      for (let i = 0; i < 50 && replay.ok && replay.status === 409; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        replay = await fire(i);
      }
      assert.ok(replay.ok && replay.status === 201, 'the retry after the storm is answered 201');
      const replayedId = replay.json<{ id: string }>().id;
      if (ids.size === 1) assert.equal(replayedId, [...ids][0]);

      const rows = await withStoreQuery(target, (query) =>
        query('SELECT id FROM payments WHERE merchant_id = $1 AND reference_no = $2', [merchant.id, key]),
      );
      assert.deepEqual(
        rows.map((r) => r['id']),
        [replayedId],
        'exactly one payment in the database',
      );
    });
  }
});
