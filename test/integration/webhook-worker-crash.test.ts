import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { insertEvent } from '../../src/modules/events/event-repo.ts';
import { createTestApp, json, TEST_SECRET, type TestApp } from '../harness/test-app.ts';
import { openTestStore, TEST_STORE } from '../harness/test-store.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from '../harness/webhook-receiver.ts';

/**
 * The outbox's crash guarantee, end to end: two `tributary worker` processes on one PostgreSQL
 * database; one is SIGKILLed while its batch is on the wire. Every event is still delivered, and
 * the only duplicates are events of the killed worker's in-flight batch.
 */
const EVENTS = 40;
const CONCURRENCY = 4;

interface Worker {
  child: ChildProcess;
  started: Promise<void>;
  stderr: string[];
}

function startWorker(url: string): Worker {
  const child = spawn(process.execPath, ['bin/tributary.js', 'worker'], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      TRIBUTARY_SECRET: TEST_SECRET,
      WEBHOOK_ALLOWLIST: '127.0.0.1',
      // Sends must not time out while the test holds them; the lease, longer than a send, is what
      // brings the killed worker's batch back.
      WEBHOOK_TIMEOUT_MS: '10000',
      WEBHOOK_CONNECT_TIMEOUT_MS: '500',
      WEBHOOK_LEASE_MS: '12000',
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_CONCURRENCY_PER_ENDPOINT: String(CONCURRENCY),
      DB_POOL_SIZE: '4',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const started = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      if (d.toString().includes('"worker":"started"')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${String(code)}): ${stderr.join('')}`)));
  });
  return { child, started, stderr };
}

/** Bounded polling: child processes cannot be driven by a manual clock. */
async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(
  'a worker killed mid-batch (PostgreSQL, two worker processes)',
  { skip: TEST_STORE !== 'postgres' && 'runs with npm run test:pg' },
  () => {
    let t: TestApp;
    let receiver: Receiver;
    const workers: Worker[] = [];
    before(async () => {
      const testStore = await openTestStore({ kind: 'postgres' });
      t = await createTestApp({ testStore, clock: systemClock, webhookAllowlist: ['127.0.0.1'] });
      receiver = await startReceiver();
    });
    after(async () => {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
      await receiver.close();
      await t.close();
      await t.testStore.close();
    });

    it('delivers every event at least once; duplicates only from the killed worker’s in-flight batch', async () => {
      const url = t.testStore.url;
      assert.ok(url !== undefined);
      const created = await t.call('POST', '/webhook_endpoint/create', { body: { url: receiver.url('/crash') } });
      assert.equal(created.statusCode, 201, created.body);
      const eventIds: string[] = [];
      for (let i = 0; i < EVENTS; i += 1) {
        eventIds.push(
          await insertEvent(t.testStore.store, {
            merchantId: t.a.id,
            environment: 'sandbox',
            type: 'payment.succeeded',
            objectType: 'payment',
            objectId: `pay_CRASH${String(i).padStart(21, '0')}`,
            objectVersion: 3,
            apiVersion: '2026-11-01',
            object: { id: `pay_CRASH${String(i).padStart(21, '0')}`, object: 'payment', version: 3 },
            previousAttributes: { status: 'pending' },
            now: systemClock.now(),
          }),
        );
      }

      // Hold every request: both workers fill their slots and keep them on the wire.
      receiver.respond = () => 'hold';
      workers.push(startWorker(url), startWorker(url));
      await Promise.all(workers.map((w) => w.started));
      await until('both workers have a full batch in flight', () => receiver.held.length === 2 * CONCURRENCY);

      // Kill one of them mid-batch: its connections drop, its claims stay leased in the database.
      const [victim, survivor] = workers as [Worker, Worker];
      victim.child.kill('SIGKILL');
      await until(
        'the victim’s requests are abandoned',
        () => receiver.requests.filter((r) => r.abandoned).length === CONCURRENCY,
      );
      const inFlightOfVictim = new Set(receiver.requests.filter((r) => r.abandoned).map(eventIdOf));
      assert.equal(inFlightOfVictim.size, CONCURRENCY);

      // The receiver recovers; the survivor finishes everything, the victim's batch once its lease expires.
      receiver.respond = () => ({ status: 200 });
      receiver.release();
      const succeeded = async () =>
        Number(
          (
            await t.testStore.store.query<{ n: bigint }>(
              "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'succeeded'",
            )
          )[0]?.n,
        );
      await until('every delivery succeeded', async () => (await succeeded()) === EVENTS, 60_000);

      const answered = receiver.requests.filter((r) => r.answered);
      assert.deepEqual(new Set(answered.map(eventIdOf)), new Set(eventIds), 'no event lost');
      const seen = new Map<string, number>();
      for (const r of receiver.requests) seen.set(eventIdOf(r), (seen.get(eventIdOf(r)) ?? 0) + 1);
      const duplicated = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
      assert.ok(
        duplicated.every((id) => inFlightOfVictim.has(id)),
        `duplicates ${JSON.stringify(duplicated)} ⊆ the killed worker's in-flight batch`,
      );
      assert.ok(duplicated.length <= CONCURRENCY);
      assert.ok([...seen.values()].every((n) => n <= 2));
      // The victim recorded nothing for its batch: the survivor's attempt is the first on record.
      const rows = await t.testStore.store.query<{ attempt_count: number }>('SELECT attempt_count FROM webhook_deliveries');
      assert.ok(rows.every((r) => r.attempt_count === 1));
      const log = json(await t.call('GET', `/event/${[...inFlightOfVictim][0] ?? ''}/deliveries`));
      assert.equal((log['data'] as { status: string }[])[0]?.status, 'succeeded');

      // The survivor stops gracefully on SIGTERM.
      survivor.child.kill('SIGTERM');
      const code = await new Promise<number | null>((resolve) => survivor.child.once('exit', (c) => resolve(c)));
      assert.equal(code, 0, survivor.stderr.join(''));
    });
  },
);

function eventIdOf(r: ReceivedRequest): string {
  const v = r.headers['webhook-id'];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}
