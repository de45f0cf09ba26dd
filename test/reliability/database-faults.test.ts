import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, waitReady } from './harness/api-client.ts';
import { type CreateLedger, checkAcknowledged, drainPending, startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import { adminQuery, databaseUrl, type OwnCluster, startOwnCluster } from './harness/databases.ts';
import { type FaultProxy, startFaultProxy } from './harness/fault-proxy.ts';
import { FAULT_ENV, knobs } from './harness/knobs.ts';
import {
  createMerchant,
  type Merchant,
  newSecret,
  type ServerProcess,
  sleep,
  startServer,
  type StoreTarget,
} from './harness/processes.ts';

/**
 * Scenario 2: the database fails under create load, on a throwaway PostgreSQL cluster this test
 * owns (never the machine's): stopped with an immediate shutdown and restarted; backends
 * terminated mid-transaction; the link stalled by a TCP fault proxy. In each: no 500 and no hang
 * (every request is answered, 503s carry Retry-After and come quickly), the process survives,
 * service resumes within seconds, and nothing acknowledged is lost.
 */
const RESUME_WITHIN_MS = 10_000;

describe('PostgreSQL faults under create load (own cluster)', () => {
  let cluster: OwnCluster;
  let target: StoreTarget;
  let merchant: Merchant;
  const secret = newSecret();
  let server: ServerProcess | undefined;
  let proxy: FaultProxy | undefined;

  before(async () => {
    cluster = await startOwnCluster();
    await adminQuery(cluster.adminUrl, 'CREATE DATABASE tributary');
    target = { kind: 'postgres', url: databaseUrl(cluster.adminUrl, 'tributary') };
    merchant = await createMerchant(target, secret, 'Database faults');
  });
  after(async () => {
    await server?.kill9();
    await proxy?.close();
    await cluster?.destroy();
  });

  /** Runs create load around `fault`, then drains and checks the invariants every fault shares. */
  async function underLoad(
    name: string,
    env: Record<string, string>,
    via: StoreTarget,
    fault: (ledger: CreateLedger) => Promise<void>,
  ) {
    server = await startServer({ target: via, secret, env: { ...FAULT_ENV, ...env } });
    const s = server;
    const { ledger, prefix, stop } = startCreateLoad({
      tag: `db${name}`,
      baseUrl: () => s.url,
      apiKey: merchant.sandboxKey,
      workers: knobs.workers,
    });
    try {
      await sleep(1_500);
      await fault(ledger);
      await sleep(500);
    } finally {
      await stop();
    }
    await drainPending(s.url, merchant.sandboxKey, ledger, 30_000);
    console.log(`# ${name}: ${ledger.summary()}`);
    if (s.child.exitCode !== null || s.child.signalCode !== null) {
      console.log(`# the server died (${s.child.exitCode ?? s.child.signalCode}); its output:\n${s.output().slice(-3000)}`);
    }
    assert.deepEqual(ledger.violations, [], 'only 201, 409 in progress or 503 with Retry-After');
    assert.deepEqual(
      [...ledger.statuses.keys()].filter((k) => k.startsWith('network:')),
      [],
      'every request was answered (no hang, no crash)',
    );
    assert.equal(s.child.exitCode, null, 'the process survived');
    assert.equal(ledger.pending.size, 0, 'every key sent was acknowledged once the database was back');
    assert.deepEqual(await withStoreQuery(target, (query) => checkAcknowledged(query, prefix, ledger)), []);
    await s.terminate();
    server = undefined;
    return ledger;
  }

  /** Milliseconds from `sinceMs` to the first 201 that came after it (bounded wait). */
  async function firstSuccessAfter(ledger: CreateLedger, sinceMs: number, withinMs: number): Promise<number> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const hit = ledger.responses.find((r) => r.status === 201 && r.at > sinceMs);
      if (hit !== undefined) return hit.at - sinceMs;
      if (Date.now() > deadline) return Number.POSITIVE_INFINITY;
      await sleep(50);
    }
  }

  it('stopped with an immediate shutdown and restarted: quick 503s, then service resumes', async () => {
    // `down` is the window in which the cluster is certainly stopped: from the moment the
    // immediate shutdown has completed until we ask it to start again.
    let down = { from: 0, to: 0 };
    let resumeMs = 0;
    const ledger = await underLoad('stop', {}, target, async (l) => {
      await cluster.stopImmediate();
      down.from = Date.now();
      await sleep(knobs.outageSeconds * 1000);
      down = { ...down, to: Date.now() };
      await cluster.start();
      const restartedAt = Date.now();
      resumeMs = await firstSuccessAfter(l, restartedAt, RESUME_WITHIN_MS + 5_000);
    });
    const during = ledger.responses.filter((r) => r.at - r.elapsedMs > down.from && r.at < down.to);
    const slowest = Math.max(0, ...during.map((r) => r.elapsedMs));
    console.log(
      `# outage: ${during.length} answers while down (slowest ${slowest.toFixed(0)} ms), resumed ${resumeMs} ms after restart`,
    );
    assert.ok(
      during.some((r) => r.status === 503),
      'requests during the outage were answered 503',
    );
    assert.ok(
      during.every((r) => r.status === 503 || r.status === 409),
      'nothing but 503 (or 409 in progress) while down',
    );
    assert.ok(slowest < 3_000, `503s came quickly (slowest ${slowest} ms)`);
    assert.ok(resumeMs <= RESUME_WITHIN_MS, `service resumed within ${RESUME_WITHIN_MS} ms (took ${resumeMs})`);
  });

  it('backends terminated mid-transaction: answered, retried, nothing lost', async () => {
    let terminated = 0;
    await underLoad('terminate', {}, target, async () => {
      const until = Date.now() + 3_000;
      while (Date.now() < until) {
        const rows = await adminQuery(
          cluster.adminUrl,
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = 'tributary' AND datname = 'tributary'`,
        );
        terminated += rows.rows.filter((r: { ok: boolean }) => r.ok).length;
        await sleep(200);
      }
    });
    console.log(`# terminated ${terminated} backends`);
    assert.ok(terminated > 0, 'backends were terminated');
  });

  it('stalled link: timeouts fire, readiness goes red, requests never queue unboundedly, then it recovers', async () => {
    proxy = await startFaultProxy({ host: '127.0.0.1', port: cluster.port });
    const p = proxy;
    const viaProxy: StoreTarget = {
      kind: 'postgres',
      url: databaseUrl(`postgres://postgres@127.0.0.1:${p.port}/postgres`, 'tributary'),
    };
    let stall = { from: 0, to: 0 };
    let readiness = { status: 0, ms: 0 };
    let burst: { status: number; ms: number }[] = [];
    let resumeMs = 0;
    let readyAgainMs = 0;
    const ledger = await underLoad('stall', { DB_STATEMENT_TIMEOUT_MS: '1000' }, viaProxy, async (l) => {
      const url = (server as ServerProcess).url;
      stall.from = Date.now();
      p.setMode('stall');
      await sleep(500);
      const ready = await call(url, 'GET', '/readyz', { timeoutMs: 10_000 });
      readiness = { status: ready.ok ? ready.status : 0, ms: ready.elapsedMs };
      // A burst on top of the load: with the pool stuck, each must still be answered in bounded time.
      const answers = await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          call(url, 'POST', '/payment/create', {
            key: merchant.sandboxKey,
            body: { amount: 150000, currency: 'IDR', reference_no: `burst-${stall.from}-${i}` },
            timeoutMs: 20_000,
          }),
        ),
      );
      burst = answers.map((a) => ({ status: a.ok ? a.status : 0, ms: a.elapsedMs }));
      await sleep(Math.max(0, stall.from + knobs.outageSeconds * 1000 - Date.now()));
      p.setMode('pass');
      stall = { ...stall, to: Date.now() };
      resumeMs = await firstSuccessAfter(l, stall.to, RESUME_WITHIN_MS + 5_000);
      readyAgainMs = await waitReady(url, RESUME_WITHIN_MS + 5_000).catch(() => Number.POSITIVE_INFINITY);
    });
    // Every request that overlapped the stall, including those already in flight when it began.
    const during = ledger.responses.filter((r) => r.at - r.elapsedMs < stall.to && r.at > stall.from);
    const slowest = Math.max(0, ...during.map((r) => r.elapsedMs), ...burst.map((b) => b.ms));
    console.log(
      `# stall: readiness ${readiness.status} in ${readiness.ms.toFixed(0)} ms; ${during.length} answers overlapping it + burst of ${burst.length} ` +
        `(${[...new Set(burst.map((b) => b.status))].join('/')}), slowest ${slowest.toFixed(0)} ms; resumed ${resumeMs} ms, ready again ${readyAgainMs} ms`,
    );
    assert.equal(readiness.status, 503, 'readiness went red');
    assert.ok(readiness.ms < 2_500, `readiness answered quickly (${readiness.ms} ms)`);
    assert.ok(
      burst.every((b) => b.status === 503),
      `the burst was refused with 503, not queued (${burst.map((b) => b.status).join(',')})`,
    );
    assert.ok(slowest < 8_000, `every request during the stall was answered within the timeouts (slowest ${slowest} ms)`);
    assert.ok(resumeMs <= RESUME_WITHIN_MS, `service resumed within ${RESUME_WITHIN_MS} ms (took ${resumeMs})`);
  });
});
