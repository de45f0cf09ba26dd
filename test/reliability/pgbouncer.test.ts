import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { waitReady } from './harness/api-client.ts';
import { checkAcknowledged, drainPending, startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import { adminQuery, ADMIN_URL, freePort, freshDatabase } from './harness/databases.ts';
import { missingCommand, type Pgbouncer, startPgbouncer, startSandboxProviders } from './harness/ha.ts';
import { knobs } from './harness/knobs.ts';
import { checkRefunds, startRefundLoad, undeliveredEvents, untouchedCreates } from './harness/refund-load.ts';
import { createMerchant, killIfRunning, newSecret, type ServerProcess, sleep, startServer } from './harness/processes.ts';
import { registerEndpoint, startWebhookReceiver, startWorkerIfNeeded } from './harness/webhooks.ts';

/**
 * Scenario 8a: Tributary through pgbouncer in transaction pooling mode (docs/scaling.md). Two API
 * processes and a webhook worker share 4 server connections through pgbouncer, so consecutive
 * transactions of one client connection land on different server sessions: anything that relied
 * on session state (a session advisory lock, a `SET`, a named prepared statement) would break.
 * The two servers start at once on an empty database, so the migrations also run concurrently
 * through the pooler. Create + refund + webhook load, then the usual invariants.
 */
const POOL = 4;
const missing = await missingCommand('pgbouncer');

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe(
  'pgbouncer in transaction pooling mode',
  { skip: missing && `${missing} is not installed (apt-get install -y pgbouncer)` },
  () => {
    it('serves create + refund + webhook load from 2 API processes and a worker over 4 shared server connections', async () => {
      const db = await freshDatabase('rel_pgbouncer');
      cleanups.push(() => db.drop());
      // pgbouncer cannot carry per-connection startup parameters across pooled sessions; the
      // timeouts Tributary asks for are set on the database instead (docs/scaling.md).
      await adminQuery(ADMIN_URL, `ALTER DATABASE ${db.name} SET statement_timeout = '5s'`);
      await adminQuery(ADMIN_URL, `ALTER DATABASE ${db.name} SET idle_in_transaction_session_timeout = '10s'`);
      const bouncer: Pgbouncer = await startPgbouncer(5432, POOL);
      cleanups.push(() => bouncer.close());
      const target = { kind: 'postgres' as const, url: bouncer.url(db.name) };
      const secret = newSecret();
      // One sandbox-providers process for both API processes (their notifications go to the first).
      const portA = await freePort();
      const providers = await startSandboxProviders(secret, `http://127.0.0.1:${portA}`);
      cleanups.push(() => providers.close());
      const env = {
        WEBHOOK_ALLOWLIST: '127.0.0.1',
        DB_POOL_SIZE: '10',
        SANDBOX_PROVIDER_URL: providers.url,
        SANDBOX_PROVIDER_SECRET: secret,
      };

      // Both servers migrate the empty database at the same time, through the pooler.
      const servers: ServerProcess[] = await Promise.all([
        startServer({ target, secret, env: { ...env, PORT: String(portA) } }),
        startServer({ target, secret, env }),
      ]);
      for (const s of servers) cleanups.push(() => killIfRunning(s));
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const migrations = await withStoreQuery({ kind: 'postgres', url: db.url }, (q) =>
        q('SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version HAVING count(*) > 1'),
      );
      assert.deepEqual(migrations, [], 'each migration applied once');

      const merchant = await createMerchant(target, secret, 'Through pgbouncer');
      const receiver = await startWebhookReceiver();
      cleanups.push(() => receiver.close());
      const since = new Date(Date.now() - 1_000);
      await registerEndpoint(a.url, merchant.sandboxKey, receiver.url);
      const worker = startWorkerIfNeeded(target, secret, env);
      cleanups.push(() => void worker?.kill('SIGKILL'));

      let turn = 0;
      const baseUrl = () => ((turn += 1) % 2 === 0 ? a.url : b.url);
      const creates = startCreateLoad({ tag: 'pgb', baseUrl, apiKey: merchant.sandboxKey, workers: knobs.workers });
      const refunds = startRefundLoad({ baseUrl, apiKey: merchant.sandboxKey, creates: creates.ledger, workers: 2 });
      let peak = { clActive: 0, svActive: 0, svIdle: 0, svUsed: 0, clWaiting: 0 };
      const until = Date.now() + 10_000;
      while (Date.now() < until) {
        const p = await bouncer.pools(db.name);
        if (p.clActive + p.clWaiting > peak.clActive + peak.clWaiting) peak = p;
        await sleep(250);
      }
      await creates.stop();
      await refunds.stop();
      await drainPending(a.url, merchant.sandboxKey, creates.ledger, 30_000);
      await waitReady(b.url);
      console.log(`# pgbouncer: ${creates.ledger.summary()}`);
      console.log(`# pgbouncer: ${refunds.ledger.summary()}`);
      console.log(`# pgbouncer: busiest moment ${JSON.stringify(peak)} (server pool ${POOL})`);

      assert.deepEqual(creates.ledger.violations, [], 'creates: only 201, 409 in progress or 503 with Retry-After');
      assert.deepEqual(refunds.ledger.violations, [], 'refunds: no unexpected answer');
      assert.ok(creates.ledger.acked.size > 20, 'creates were acknowledged');
      assert.ok(refunds.ledger.acked.size > 0, 'refunds were acknowledged');
      assert.deepEqual(refunds.ledger.gaveUp, [], 'no refund flow ran out of time');
      assert.equal(creates.ledger.pending.size, 0, 'every key sent was acknowledged');
      assert.ok(
        peak.clActive + peak.clWaiting > POOL,
        `more client connections than server connections (${JSON.stringify(peak)})`,
      );
      assert.ok(peak.svActive + peak.svIdle + peak.svUsed <= POOL, 'never more server connections than the pool');

      const query = { kind: 'postgres' as const, url: db.url };
      assert.deepEqual(
        await withStoreQuery(query, (q) =>
          checkAcknowledged(q, creates.prefix, untouchedCreates(creates.ledger, refunds.ledger)),
        ),
        [],
      );
      assert.deepEqual(await withStoreQuery(query, (q) => checkRefunds(q, refunds.ledger)), []);
      const delivery = await withStoreQuery(query, (q) => undeliveredEvents(q, merchant.id, receiver, 60_000, since));
      console.log(`# pgbouncer: ${delivery.events} events, ${receiver.deliveries.length} deliveries`);
      assert.deepEqual(delivery.undelivered.slice(0, 10), [], 'every committed event was delivered');
      // Decision 0030: a pooler without prepared-statement support (pgbouncer before 1.21) refuses
      // a named statement on a session that did not prepare it; each API process then turned its
      // own off once, ran that statement (or its transaction) again unnamed, and answered on — the
      // ledgers above saw no unexpected answer.
      const offs = servers.map((s) => s.output().split('prepared statements off for this process').length - 1);
      console.log(`# pgbouncer: prepared statements turned off, per API process: ${offs.join(', ')}`);
      for (const n of offs) assert.ok(n <= 1, `turned off at most once per process (${offs.join(', ')})`);
      for (const s of servers) assert.equal((await s.terminate()).code, 0);
    });
  },
);
