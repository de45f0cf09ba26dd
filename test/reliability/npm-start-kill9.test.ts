import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { waitReady } from './harness/api-client.ts';
import {
  checkAcknowledged,
  checkAcknowledgedOverHttp,
  drainPending,
  startCreateLoad,
  withStoreQuery,
} from './harness/create-load.ts';
import { freePort, freshDatabase } from './harness/databases.ts';
import { knobs } from './harness/knobs.ts';
import {
  createMerchant,
  killIfRunning,
  newSecret,
  readmeEnv,
  type ServerProcess,
  sleep,
  startAsReadme,
  type StoreTarget,
  tempDir,
} from './harness/processes.ts';

/**
 * Scenario 7 (issue 14): the server started exactly as the README says — `npm start`, so npm, a
 * shell and node in one process group, every setting at its default (rate limits on; on the
 * embedded store a fresh DATA_DIR, its own generated secret and the keys printed on first start)
 * — and the WHOLE group killed with SIGKILL under create load after 3, 4 and 5 s of serving,
 * restarted each time with `npm start` on the same store. Then, as a merchant would check: every
 * acknowledged payment answers GET /payment/{id}, every key replays to the same payment, and the
 * store agrees (no key with two payments, every acknowledged key finished).
 */
const KILL_AFTER_SECONDS = [3, 4, 5];

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The sandbox key printed on the first start of a fresh embedded store. */
async function firstStartKey(server: ServerProcess): Promise<string> {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const match = /^\s+sandbox\s+(sk_test_\S+)$/m.exec(server.output());
    if (match?.[1] !== undefined && /^\s+production\s+sk_live_\S+$/m.test(server.output())) return match[1];
    await sleep(50);
  }
  throw new Error(`the first start printed no keys:\n${server.output()}`);
}

for (const kind of ['embedded', 'postgres'] as const) {
  describe(`npm start, process group killed with SIGKILL under create load (${kind})`, () => {
    it(`loses no acknowledged payment and key over ${KILL_AFTER_SECONDS.length} kills`, async () => {
      const port = await freePort();
      let target: StoreTarget;
      let env: NodeJS.ProcessEnv;
      let apiKey: string | undefined;
      if (kind === 'embedded') {
        const dir = tempDir('npm-start');
        cleanups.push(() => dir.remove());
        target = { kind, dataDir: dir.path };
        env = readmeEnv(target, port);
      } else {
        const db = await freshDatabase('rel_npm_start');
        cleanups.push(() => db.drop());
        target = { kind, url: db.url };
        const secret = newSecret();
        env = readmeEnv(target, port, secret);
        apiKey = (await createMerchant(target, secret, 'npm start')).sandboxKey;
      }

      let server = await startAsReadme(env);
      cleanups.push(() => killIfRunning(server));
      apiKey ??= await firstStartKey(server);
      const key = apiKey;

      const { ledger, prefix, stop } = startCreateLoad({
        tag: `ns${kind[0]}`,
        baseUrl: () => server.url,
        apiKey: key,
        workers: knobs.workers,
      });
      const ackedPerRound: number[] = [];
      try {
        for (const seconds of KILL_AFTER_SECONDS) {
          // Count the seconds from when this process serves: its first acknowledgement (bounded).
          const before = ledger.acked.size;
          for (let waited = 0; ledger.acked.size === before && waited < 60_000; waited += 50) await sleep(50);
          await sleep(seconds * 1_000);
          ackedPerRound.push(ledger.acked.size);
          // Restart at once, as a supervisor or a person would: no wait for the killed processes.
          const killed = server;
          killed.crash();
          server = await startAsReadme(env);
          assert.equal((await killed.exited).signal, 'SIGKILL');
        }
        await sleep(1_000);
      } finally {
        await stop();
      }
      await waitReady(server.url);
      await drainPending(server.url, key, ledger, 60_000);
      const overHttp = await checkAcknowledgedOverHttp(server.url, key, ledger);
      console.log(
        `# npm start kill -9 ${kind}: ${ledger.summary()}; acked before each kill: ${ackedPerRound.join(', ')}; ` +
          `${ledger.acked.size} acknowledged payments fetched and replayed over HTTP, ${overHttp.length} problems`,
      );

      assert.deepEqual(ledger.violations, [], 'the service only answered 201, 409 in progress, 429 or 503 with Retry-After');
      assert.ok(
        ackedPerRound.every((n, i) => n > (i === 0 ? 0 : (ackedPerRound[i - 1] ?? 0))),
        `creates were acknowledged before every kill: ${ackedPerRound.join(', ')}`,
      );
      assert.equal(ledger.pending.size, 0, `every key sent was acknowledged after the restarts`);
      assert.deepEqual(overHttp.slice(0, 10), [], 'every acknowledged payment is found, and its key replays to it');

      // SIGTERM to the group, as Ctrl-C or a service manager would: npm dies of the signal, the
      // server shuts down cleanly (it logs "stopped" only at the end of a clean shutdown).
      await server.terminate();
      assert.match(server.output(), /"msg":"stopped"/);
      const problems = await withStoreQuery(target, (query) => checkAcknowledged(query, prefix, ledger));
      assert.deepEqual(problems.slice(0, 10), []);
    });
  });
}
