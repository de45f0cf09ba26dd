import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPostgresStore } from '../src/db/postgres-store.ts';
import { systemClock } from '../src/lib/clock.ts';
import { refreshOverview } from '../src/modules/overview/index.ts';
import { adminQuery, freshDatabase } from '../test/reliability/harness/databases.ts';
import {
  createMerchant,
  newSecret,
  REPO_ROOT,
  type ServerProcess,
  startServer,
  type StoreTarget,
} from '../test/reliability/harness/processes.ts';
import {
  ATTEMPT_COLUMNS,
  attemptLines,
  copyInto,
  DAY_MS,
  EVENT_COLUMNS,
  eventLines,
  iso,
  PAYMENT_COLUMNS,
  paymentLines,
  paymentOf,
  type Spread,
} from './lib/copy.ts';
import { machine, writeJson } from './lib/report.ts';
import { quantile, round } from './lib/stats.ts';

/**
 * `npm run bench -- --overview`: the dashboard's home page (docs/overview.md) for a merchant with
 * 1,000,000 payments on PostgreSQL. The payments, their attempts, events and some refunds are
 * written with COPY from a generated stream (psql reading our stdin), not through the API, over
 * `--overview-days` days (default 120: more history than the page's 30-day window, so the page's
 * cost is seen not to depend on it); the refresh then builds the day aggregates (its first,
 * full run is timed), a second batch of new payments is folded in by an incremental run (timed:
 * its cost is the touched day's, not the history's), and GET /dashboard is timed over
 * `--overview-requests` sequential requests with a signed-in session. Target: p95 < 500 ms.
 * A dedicated database is created and dropped at the end. Writes bench/overview-latest.json.
 */
export interface OverviewBenchOptions {
  payments: number;
  days: number;
  requests: number;
  progress(message: string): void;
}

const TARGET_P95_MS = 500;

/** Overview's ids: one merchant, numbered rows (`pay_bench7`, `evt_bench7a` …). */
function spread(merchantId: string, from: number, to: number, startMs: number, spanMs: number): Spread {
  const prefixes = { payment: 'pay', attempt: 'att', event: 'evt' } as const;
  return {
    from,
    to,
    startMs,
    spanMs,
    merchantOf: () => merchantId,
    idOf: (kind, n, _ms, slot) => `${prefixes[kind]}_bench${n}${kind === 'event' ? (slot === 0 ? 'a' : 'b') : ''}`,
  };
}

/** Every 50th paid payment is refunded in full a day after it was paid (2 % of them). */
function* refundLines(r: Spread): Generator<string> {
  for (let n = r.from; n < r.to; n += 1) {
    const p = paymentOf(n, r);
    if (p.status !== 'succeeded' || n % 50 !== 0) continue;
    const at = p.createdMs + p.payMs + DAY_MS / 2;
    yield (
      [
        `ref_bench${n}`,
        p.merchantId,
        'sandbox',
        p.id,
        p.attempt,
        p.connector,
        p.amountMinor,
        'IDR',
        'succeeded',
        'merchant_pending',
        2,
        iso(at),
        iso(at),
        iso(at),
      ].join('\t') + '\n'
    );
  }
}
const REFUND_COLUMNS =
  'id, merchant_id, environment, payment_id, attempt_id, connector, amount_minor, currency, status, held_from, version, created_at, updated_at, completed_at';

async function preload(url: string, r: Spread): Promise<void> {
  await copyInto(url, 'payments', PAYMENT_COLUMNS, () => paymentLines(r));
  await copyInto(url, 'payment_attempts', ATTEMPT_COLUMNS, () => attemptLines(r));
  await copyInto(url, 'events', EVENT_COLUMNS, () => eventLines(r));
  await copyInto(url, 'refunds', REFUND_COLUMNS, () => refundLines(r));
}

async function signIn(base: string, key: string): Promise<string> {
  const res = await fetch(`${base}/dashboard/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ api_key: key }).toString(),
    redirect: 'manual',
  });
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (res.status !== 303 || cookie === undefined) throw new Error(`dashboard sign-in failed: ${res.status} ${await res.text()}`);
  return cookie;
}

export async function runOverviewBench(o: OverviewBenchOptions): Promise<void> {
  const before = machine();
  const secret = newSecret();
  const db = await freshDatabase('bench_overview');
  const target: StoreTarget = { kind: 'postgres', url: db.url };
  let server: ServerProcess | undefined;
  const store = await openPostgresStore({
    connectionString: db.url,
    poolSize: 2,
    connectTimeoutMs: 10_000,
    statementTimeoutMs: 0,
  });
  try {
    o.progress(`database ${db.name}: creating the merchant (migrations)`);
    const merchant = await createMerchant(target, secret, 'Overview bench');
    const nowMs = Date.now();
    // The history ends two days ago: the later batch (today) is what the incremental run folds in.
    const spanMs = o.days * DAY_MS;
    const startMs = nowMs - spanMs - 2 * DAY_MS;
    const preloadStarted = performance.now();
    o.progress(`COPY ${o.payments.toLocaleString('en')} payments (+ attempts, 2 events each, refunds) over ${o.days} days`);
    await preload(db.url, spread(merchant.id, 0, o.payments, startMs, spanMs));
    await adminQuery(db.url, 'ANALYZE');
    const preloadS = round((performance.now() - preloadStarted) / 1000, 1);
    o.progress(`preloaded in ${preloadS} s; first refresh (every day rebuilt)`);

    let t0 = performance.now();
    const first = await refreshOverview({ store, clock: systemClock });
    const firstRefreshMs = round(performance.now() - t0, 0);
    o.progress(`first refresh: ${first.daysRecomputed} days in ${firstRefreshMs} ms`);

    // Today's batch: 10,000 more payments written the same way, folded in from their events.
    const batch = 10_000;
    await preload(db.url, spread(merchant.id, o.payments, o.payments + batch, nowMs - 3 * 3_600_000, 3_600_000));
    t0 = performance.now();
    const incremental = await refreshOverview({ store, clock: systemClock });
    const incrementalRefreshMs = round(performance.now() - t0, 0);
    o.progress(
      `incremental refresh after ${batch} new payments: ${incremental.daysRecomputed} days in ${incrementalRefreshMs} ms`,
    );
    const [counts] = (
      await adminQuery(
        db.url,
        `SELECT (SELECT count(*) FROM payments) AS payments, (SELECT count(*) FROM events) AS events,
                (SELECT count(*) FROM refunds) AS refunds, (SELECT count(*) FROM overview_cohort_days) AS cohort_rows,
                (SELECT count(*) FROM overview_activity_days) AS activity_rows`,
      )
    ).rows as Record<string, string>[];

    o.progress('starting the server (RUN_JOBS=false: the timed refreshes above are the jobs) and signing in');
    server = await startServer({ target, secret, env: { RUN_JOBS: 'false', LOG_LEVEL: 'warn' } });
    const cookie = await signIn(server.url, merchant.sandboxKey);
    const get = async () => {
      const started = performance.now();
      const res = await fetch(`${server?.url}/dashboard`, { headers: { cookie } });
      const body = await res.text();
      const ms = performance.now() - started;
      if (res.status !== 200 || !body.includes('id="volume-IDR"'))
        throw new Error(`GET /dashboard: ${res.status} ${body.slice(0, 300)}`);
      return ms;
    };
    for (let i = 0; i < 20; i += 1) await get();
    o.progress(`timing ${o.requests} sequential GET /dashboard`);
    const latencies: number[] = [];
    for (let i = 0; i < o.requests; i += 1) latencies.push(await get());
    latencies.sort((a, b) => a - b);
    const p = (q: number) => round(quantile(latencies, q), 1) ?? Number.NaN;
    const result = {
      scenario: 'overview',
      store: 'postgres',
      payments: Number(counts?.['payments']),
      events: Number(counts?.['events']),
      refunds: Number(counts?.['refunds']),
      history_days: o.days + 2,
      aggregate_rows: { cohort: Number(counts?.['cohort_rows']), activity: Number(counts?.['activity_rows']) },
      preload_s: preloadS,
      first_refresh: { days: first.daysRecomputed, ms: firstRefreshMs },
      incremental_refresh: { new_payments: batch, days: incremental.daysRecomputed, ms: incrementalRefreshMs },
      requests: o.requests,
      p50_ms: p(0.5),
      p95_ms: p(0.95),
      p99_ms: p(0.99),
      max_ms: round(latencies[latencies.length - 1] ?? 0, 1),
      target: `p95 < ${TARGET_P95_MS} ms`,
      pass: p(0.95) < TARGET_P95_MS,
    };
    console.log(JSON.stringify(result, null, 2));
    await writeJson(join(REPO_ROOT, 'bench/overview-latest.json'), { machine: before, ...result });
    console.log('wrote bench/overview-latest.json');
    if (!result.pass) process.exitCode = 1;
  } finally {
    await server?.terminate().catch(() => undefined);
    await store.close();
    await db.drop();
    o.progress(`dropped ${db.name}`);
  }
}
