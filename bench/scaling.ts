import { join } from 'node:path';
import { adminQuery, freshDatabase } from '../test/reliability/harness/databases.ts';
import {
  createMerchant,
  newSecret,
  REPO_ROOT,
  type ServerProcess,
  startServer,
  type StoreTarget,
} from '../test/reliability/harness/processes.ts';
import { runLoad } from './lib/load.ts';
import { BENCH_ENV, settleAfterWrites, startCeiling } from './lib/processes.ts';
import { machine, writeJson } from './lib/report.ts';
import { round } from './lib/stats.ts';
import { createRequests, type CreatedSample } from './scenarios.ts';

/**
 * `npm run bench -- --scaling`: creates/s with 1, 2 and 3 API processes on one PostgreSQL
 * database, and in the same run the database's own ceiling for the same write (the ceiling process
 * of the main benchmark: `createPayment` in a loop at the same concurrency, no HTTP). The API
 * processes are started as an operator would scale out (same DATABASE_URL and TRIBUTARY_SECRET,
 * each its own port); autocannon spreads its connections over them. Writes bench/scaling-latest.json;
 * docs/scaling.md explains the figures and the plan past one database.
 */
export interface ScalingOptions {
  maxProcesses: number;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** Pool size of each API process. */
  poolSize: number;
  progress(message: string): void;
}

interface ScalingRow {
  api_processes: number;
  creates_per_s: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  errors: number;
  ratio_to_db_ceiling: number | null;
  speedup_vs_1: number | null;
}

export async function runScaling(o: ScalingOptions): Promise<void> {
  const before = machine();
  const secret = newSecret();
  const [api, ceilingDb] = await Promise.all([freshDatabase('bench_scale'), freshDatabase('bench_scale_ceiling')]);
  const target: StoreTarget = { kind: 'postgres', url: api.url };
  const ceilingTarget: StoreTarget = { kind: 'postgres', url: ceilingDb.url };
  const servers: ServerProcess[] = [];
  const ceiling = await startCeiling(ceilingTarget, secret);
  const runId = Date.now().toString(36);
  try {
    const serverSettings = await adminQuery(
      api.url,
      `SELECT current_setting('max_connections') AS max_connections, current_setting('synchronous_commit') AS synchronous_commit`,
    );
    o.progress(`DB ceiling (${o.connections} concurrent creates, no HTTP)`);
    const db = await ceiling.ask<{ ops: number; seconds: number; errors: number; p50: number; p99: number }>(
      { type: 'db', seconds: o.seconds, concurrency: o.connections, warmupSeconds: o.warmupSeconds },
      'db',
      (o.seconds + o.warmupSeconds) * 1000 + 60_000,
    );
    const dbRps = db.ops / db.seconds;
    await settleAfterWrites(ceilingTarget);

    const merchant = await createMerchant(target, secret, 'Scaling merchant');
    const env = { ...BENCH_ENV, DB_POOL_SIZE: String(o.poolSize) };
    const rows: ScalingRow[] = [];
    let oneProcessRps = 0;
    for (let n = 1; n <= o.maxProcesses; n += 1) {
      while (servers.length < n) servers.push(await startServer({ target, secret, env }));
      const urls = servers.map((s) => s.url);
      o.progress(`${n} API process${n === 1 ? '' : 'es'}: create (${o.connections} connections over ${n})`);
      const sample: CreatedSample[] = [];
      const expect = (s: number) => s === 201;
      await runLoad({
        url: urls,
        connections: o.connections,
        seconds: o.warmupSeconds,
        requests: createRequests(merchant.sandboxKey, `${runId}-w${n}`, sample),
        expect,
      });
      const r = await runLoad({
        url: urls,
        connections: o.connections,
        seconds: o.seconds,
        requests: createRequests(merchant.sandboxKey, `${runId}-${n}`, sample),
        expect,
      });
      if (n === 1) oneProcessRps = r.rps;
      rows.push({
        api_processes: n,
        creates_per_s: round(r.rps, 1),
        p50_ms: round(r.p50Ms, 2),
        p99_ms: round(r.p99Ms, 2),
        errors: r.errors,
        ratio_to_db_ceiling: round(r.rps / dbRps, 3),
        speedup_vs_1: round(r.rps / oneProcessRps, 2),
      });
      await settleAfterWrites(target);
    }
    const after = machine();
    console.log('');
    console.log(
      `${'API processes'.padEnd(14)} ${'creates/s'.padStart(10)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${'x DB ceiling'.padStart(13)} ${'x 1 process'.padStart(12)}`,
    );
    console.log(
      `${'DB ceiling'.padEnd(14)} ${String(round(dbRps, 1)).padStart(10)} ${String(round(db.p50, 2)).padStart(8)} ${String(round(db.p99, 2)).padStart(8)} ${String(db.errors).padStart(7)} ${'1'.padStart(13)} ${'-'.padStart(12)}`,
    );
    for (const r of rows) {
      console.log(
        `${String(r.api_processes).padEnd(14)} ${String(r.creates_per_s).padStart(10)} ${String(r.p50_ms).padStart(8)} ${String(r.p99_ms).padStart(8)} ${String(r.errors).padStart(7)} ${String(r.ratio_to_db_ceiling).padStart(13)} ${String(r.speedup_vs_1).padStart(12)}`,
      );
    }
    console.log(
      `\n${o.seconds} s windows after ${o.warmupSeconds} s warm-up, ${o.connections} connections, DB_POOL_SIZE ${o.poolSize} per process; ` +
        `${before.cpu} x${before.cores}; load average before ${before.load_average.join(' ')}, after ${after.load_average.join(' ')}`,
    );
    await writeJson(join(REPO_ROOT, 'bench/scaling-latest.json'), {
      window_seconds: o.seconds,
      warmup_seconds: o.warmupSeconds,
      connections: o.connections,
      pool_size_per_process: o.poolSize,
      postgres: serverSettings.rows[0],
      machine: { ...before, load_average_after: after.load_average },
      db_ceiling: { creates_per_s: round(dbRps, 1), p50_ms: round(db.p50, 2), p99_ms: round(db.p99, 2), errors: db.errors },
      api: rows,
    });
    console.log('wrote bench/scaling-latest.json');
  } finally {
    await Promise.all(servers.map((s) => s.terminate().catch(() => s.kill9())));
    await ceiling.stop();
    await Promise.all([api.drop(), ceilingDb.drop()]);
  }
}
