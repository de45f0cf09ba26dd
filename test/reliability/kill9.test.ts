import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { waitReady } from './harness/api-client.ts';
import { checkAcknowledged, drainPending, startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import { freshDatabase } from './harness/databases.ts';
import { FAULT_ENV, knobs } from './harness/knobs.ts';
import { registerEndpoint, startWebhookReceiver, startWorkerIfNeeded, type WebhookReceiver } from './harness/webhooks.ts';
import {
  createMerchant,
  killIfRunning,
  newSecret,
  type ServerProcess,
  sleep,
  startServer,
  type StoreTarget,
  tempDir,
} from './harness/processes.ts';

/**
 * Scenario 1: kill -9 of the API process every few seconds under create load, several rounds, on
 * both stores. Clients retry unacknowledged keys (same key, same body) like a careful client.
 * Afterwards every acknowledged payment exists, every key has at most one payment, and every key
 * that was ever sent ends acknowledged once the service is back. A loopback webhook receiver is
 * registered too, and every acknowledged payment's `payment.pending` event must reach it despite
 * the kills (at least once; on PostgreSQL a separate `tributary worker` dispatches as well).
 */
const WEBHOOK_WAIT_MS = Number(process.env['RELIABILITY_WEBHOOK_WAIT_SECONDS'] ?? 60) * 1000;

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function targetFor(kind: 'embedded' | 'postgres'): Promise<StoreTarget> {
  if (kind === 'embedded') {
    const dir = tempDir('kill9');
    cleanups.push(() => dir.remove());
    return { kind, dataDir: dir.path };
  }
  const db = await freshDatabase('rel_kill9');
  cleanups.push(() => db.drop());
  return { kind, url: db.url };
}

for (const kind of ['embedded', 'postgres'] as const) {
  describe(`kill -9 under create load (${kind})`, () => {
    it(`loses no acknowledged payment and never pays twice over ${knobs.killRounds} kills`, async () => {
      const target = await targetFor(kind);
      const secret = newSecret();
      const merchant = await createMerchant(target, secret, 'Kill nine');
      const env = { ...FAULT_ENV, WEBHOOK_ALLOWLIST: '127.0.0.1' };
      let server: ServerProcess = await startServer({ target, secret, env });
      cleanups.push(() => killIfRunning(server));
      const receiver: WebhookReceiver = await startWebhookReceiver();
      cleanups.push(() => receiver.close());
      await registerEndpoint(server.url, merchant.sandboxKey, receiver.url);
      const worker = startWorkerIfNeeded(target, secret, env);
      cleanups.push(() => void worker?.kill('SIGKILL'));
      const { ledger, prefix, stop } = startCreateLoad({
        tag: `k9${kind[0]}`,
        baseUrl: () => server.url,
        apiKey: merchant.sandboxKey,
        workers: knobs.workers,
      });
      const ackedPerRound: number[] = [];
      try {
        for (let round = 0; round < knobs.killRounds; round += 1) {
          // Each kill hits a process that is serving: first see it acknowledge a create (bounded;
          // an embedded restart on a loaded machine can take longer than the kill interval).
          const before = ledger.acked.size;
          for (let waited = 0; ledger.acked.size === before && waited < 60_000; waited += 100) await sleep(100);
          await sleep(1_000 + Math.floor(Math.random() * 2_000));
          ackedPerRound.push(ledger.acked.size);
          // Restart at once, as a supervisor or a person would: no wait for the killed processes.
          const killed = server;
          killed.crash();
          server = await startServer({ target, secret, env });
          assert.equal((await killed.exited).signal, 'SIGKILL');
        }
        await sleep(1_000);
      } finally {
        await stop();
      }
      await waitReady(server.url);
      await drainPending(server.url, merchant.sandboxKey, ledger, 30_000);
      console.log(`# kill -9 ${kind}: ${ledger.summary()}; acked before each kill: ${ackedPerRound.join(', ')}`);

      assert.deepEqual(ledger.violations, [], 'the service only answered 201, 409 in progress or 503 with Retry-After');
      assert.ok(
        ackedPerRound.every((n, i) => i === 0 || n > (ackedPerRound[i - 1] ?? 0)),
        'creates were acknowledged between kills',
      );
      assert.equal(
        ledger.pending.size,
        0,
        `every key sent was acknowledged after the restart: ${[...ledger.pending].slice(0, 5).join(', ')}`,
      );

      {
        // At least once: every acknowledged payment's payment.pending event reaches the receiver.
        const r = receiver;
        const undelivered = () => {
          const seen = new Set(
            r.deliveries.filter((d) => d.event.type === 'payment.pending').map((d) => d.event.data?.object?.id),
          );
          return [...ledger.acked.values()].filter((id) => !seen.has(id));
        };
        const deadline = Date.now() + WEBHOOK_WAIT_MS;
        while (undelivered().length > 0 && Date.now() < deadline) await sleep(200);
        console.log(`# kill -9 ${kind}: ${r.deliveries.length} deliveries for ${ledger.acked.size} acknowledged payments`);
        assert.deepEqual(undelivered().slice(0, 10), [], 'every acknowledged payment.pending event was delivered');
      }

      const exit = await server.terminate();
      assert.equal(exit.code, 0);
      const problems = await withStoreQuery(target, (query) => checkAcknowledged(query, prefix, ledger));
      assert.deepEqual(problems, []);
    });
  });
}
