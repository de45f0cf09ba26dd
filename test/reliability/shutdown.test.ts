import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { checkAcknowledged, startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import { databaseUrl, freshDatabase } from './harness/databases.ts';
import { type FaultProxy, startFaultProxy } from './harness/fault-proxy.ts';
import { knobs } from './harness/knobs.ts';
import { createMerchant, killIfRunning, newSecret, sleep, startServer, type StoreTarget, tempDir } from './harness/processes.ts';

/**
 * Scenario 6: SIGTERM under create load. In-flight requests finish (201), requests after the
 * signal are refused (503 with Retry-After, or the connection is refused once the listener is
 * closed) and change nothing, no request the server started loses its answer, no lease is left
 * held, every acknowledged payment exists, and the process exits 0.
 * On PostgreSQL the database link runs through a fault proxy that adds latency, so that many
 * creates are provably in flight when the signal arrives.
 */
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

/**
 * Per chunk, each way. A create is two statements (four delayed crossings, ~600 ms), so creates
 * sent well before the signal are still running when it arrives (at 40 ms, with the create's
 * round trips down from eleven to two, they had all finished: the check below saw none).
 */
const LINK_DELAY_MS = 150;
/** Requests sent this long before the signal had certainly reached the server. */
const SURELY_RECEIVED_MS = 150;
/** Requests sent this long after the signal came after the server had seen it. */
const SURELY_AFTER_MS = 300;

for (const kind of ['postgres', 'embedded'] as const) {
  describe(`graceful shutdown under load (${kind})`, () => {
    it('finishes in-flight creates, refuses new ones with 503, leaves no lease, exits 0', async () => {
      const secret = newSecret();
      let target: StoreTarget;
      let serverTarget: StoreTarget;
      let proxy: FaultProxy | undefined;
      if (kind === 'postgres') {
        const db = await freshDatabase('rel_shutdown');
        cleanups.push(() => db.drop());
        target = { kind, url: db.url };
        const admin = new URL(db.url);
        proxy = await startFaultProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
        cleanups.push(() => proxy?.close());
        proxy.setDelay(LINK_DELAY_MS);
        serverTarget = { kind, url: databaseUrl(`postgres://postgres@127.0.0.1:${proxy.port}/postgres`, db.name) };
      } else {
        const dir = tempDir('shutdown');
        cleanups.push(() => dir.remove());
        target = { kind, dataDir: dir.path };
        serverTarget = target;
      }
      const merchant = await createMerchant(target, secret, 'Shutdown');
      // Info logs: the test reads when the server began shutting down.
      const server = await startServer({ target: serverTarget, secret, env: { LOG_LEVEL: 'info' } });
      cleanups.push(() => killIfRunning(server));
      const { ledger, prefix, stop } = startCreateLoad({
        tag: `sd${kind[0]}`,
        baseUrl: () => server.url,
        apiKey: merchant.sandboxKey,
        workers: knobs.workers * 2,
        retryPauseMs: 20,
        // Spread over one create's length on the slowed link, so that some are always in flight.
        staggerMs: kind === 'postgres' ? Math.ceil((4 * LINK_DELAY_MS) / (knobs.workers * 2)) : 0,
      });
      await sleep(2_000);
      const signalAt = Date.now();
      server.child.kill('SIGTERM');
      const exit = await Promise.race([server.exited, sleep(20_000).then(() => undefined)]);
      await stop();
      const answers = [
        ...ledger.responses.map((r) => ({ ...r, sentAt: r.at - r.elapsedMs, what: `${r.status} ${r.code ?? ''}`.trim() })),
        ...ledger.failures.map((f) => ({
          ...f,
          sentAt: f.at - f.elapsedMs,
          status: 0,
          retryAfter: null,
          what: `network:${f.error}`,
        })),
      ];
      const inFlight = answers.filter((a) => a.sentAt < signalAt - SURELY_RECEIVED_MS && a.at > signalAt);
      // "After the signal" counts from when the server handled it: an event loop busy with the
      // embedded store's work (or a loaded machine) may run the handler well after the kill.
      const handledAt = shutdownLoggedAt(server.output()) ?? signalAt;
      const afterSignal = answers.filter((a) => a.sentAt > Math.max(signalAt, handledAt) + SURELY_AFTER_MS);
      console.log(
        `# shutdown ${kind}: exit ${JSON.stringify(exit)} after ${Date.now() - signalAt} ms (handler ran ${handledAt - signalAt} ms after the signal); ` +
          `${inFlight.length} in flight at the signal ` +
          `(${[...new Set(inFlight.map((a) => a.what))].join(', ')}); ${afterSignal.length} sent after it ` +
          `(${[...new Set(afterSignal.map((a) => a.what))].join(', ')}); ${ledger.summary()}`,
      );

      assert.deepEqual(exit, { code: 0, signal: null }, 'the process exited 0 within 20 s');
      assert.deepEqual(ledger.violations, [], 'no 500 or other unexpected answer');
      if (kind === 'postgres') {
        // With the slowed link a create takes over half a second, so a request sent well before the
        // signal was being handled by the server. (On the embedded store creates are quick and a
        // busy event loop may read a request only after the signal: the store check below is the
        // sound form of this claim for both stores.)
        assert.deepEqual(
          inFlight.filter((a) => a.status !== 201).map((a) => a.what),
          [],
          'every in-flight create finished with 201',
        );
        assert.ok(inFlight.length >= 5, `creates were in flight at the signal (${inFlight.length})`);
      }
      for (const a of afterSignal) {
        const refused =
          a.status === 0
            ? /ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET/.test(a.what)
            : a.what === '503 service_unavailable' && a.retryAfter !== null;
        assert.ok(refused, `a request after the signal was refused (503 with Retry-After or connection refused), got ${a.what}`);
      }
      const problems = await withStoreQuery(target, async (query) => {
        const held = await query(`SELECT key FROM idempotency_keys WHERE status = 'started'`);
        // A key the client never got a 201 for must be unknown to the store: refused requests
        // changed nothing, and no request the server had started lost its answer.
        const lost = await query(`SELECT key, status FROM idempotency_keys WHERE key = ANY($1)`, [[...ledger.pending]]);
        return [
          ...held.map((r) => `lease still held for ${String(r['key'])}`),
          ...lost.map((r) => `the server ${String(r['status'])} ${String(r['key'])} but the client got no 201`),
          ...(await checkAcknowledged(query, prefix, ledger)),
        ];
      });
      assert.deepEqual(problems, []);
    });
  });
}

/** When the server logged that it began shutting down (its `time`), from its output; undefined if absent. */
function shutdownLoggedAt(output: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('shutting down: finishing in-flight requests')) continue;
    try {
      const time = Date.parse(String((JSON.parse(line) as { time?: unknown }).time));
      if (!Number.isNaN(time)) return time;
    } catch {
      // not a JSON log line
    }
  }
  return undefined;
}
