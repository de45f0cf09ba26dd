import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { openPostgresStore } from '../src/db/postgres-store.ts';
import type { Queryable } from '../src/db/store.ts';
import { systemClock } from '../src/lib/clock.ts';
import { createSecretBox } from '../src/lib/secret-box.ts';
import { refreshOverview } from '../src/modules/overview/index.ts';
import { CREATE_OPERATION } from '../src/modules/payments/create-payment.ts';
import { findPayment, markPaymentPendingStatement } from '../src/modules/payments/payment-repo.ts';
import { listPayments } from '../src/modules/payments/payment-query-repo.ts';
import { selectKeyStatement } from '../src/modules/idempotency/idempotency-repo.ts';
import { CLAIM_SETTINGS_SQL, claimStatement } from '../src/modules/webhooks/delivery-repo.ts';
import { endpointSecretContext, SECRET_BOX_PURPOSE } from '../src/modules/webhooks/webhook-secrets.ts';
import { generateWebhookSecret } from '../src/modules/webhooks/webhook-signature.ts';
import { adminQuery, freshDatabase } from '../test/reliability/harness/databases.ts';
import { createMerchant, type Merchant, newSecret, REPO_ROOT, type StoreTarget } from '../test/reliability/harness/processes.ts';
import {
  ATTEMPT_COLUMNS,
  attemptLines,
  copyInto,
  DAY_MS,
  EVENT_COLUMNS,
  eventLines,
  eventsOf,
  iso,
  PAYMENT_COLUMNS,
  paymentLines,
  paymentOf,
  type Spread,
} from './lib/copy.ts';
import { measureCreate, measureDbCeiling, measureGet, measureGetCeiling, serveCeiling, type Windows } from './lib/measure.ts';
import { type BenchStore, settleAfterWrites, setupStore } from './lib/processes.ts';
import { machine, printTable, type Row, writeJson } from './lib/report.ts';
import type { CreatedSample } from './scenarios.ts';
import { quantile, round } from './lib/stats.ts';

/**
 * `npm run bench -- --history`: does Tributary's cost grow with its history (issue 27, item 5)?
 * On PostgreSQL only. A dedicated database gets `--history-merchants` merchants (the measured one
 * made with the CLI, which migrates the database; the others by one INSERT … SELECT) with one
 * webhook endpoint each, then `--history-payments` payments spread evenly across the merchants
 * over HISTORY_DAYS days, each with its attempt and its two events (payment.pending and its final
 * event), and `--history-deliveries` succeeded webhook deliveries of those events — all written
 * with COPY from generated streams (bench/lib/copy.ts, as bench/overview.ts does), never through
 * the API; the overview's day aggregates are built (as a deployment with this history has them),
 * then VACUUM (ANALYZE). Before the bulk of it, the free space of PostgreSQL's data directory is
 * checked against three times the size the first chunk extrapolates to.
 *
 * Then, in the same run, an EMPTY fresh database ("postgres_empty") and the preloaded one
 * ("postgres_10m", or the size asked) are measured the same way, one after the other, each with
 * its server under test and its ceiling process started as every bench run does (setupStore; the
 * ceiling process always on a fresh database of its own, so both stores are judged against the
 * same kind of ceiling and machine noise cancels out of the ratio):
 *
 * - create (closed loop) judged against ceiling_create, get against ceiling_get. Target: the
 *   preloaded store's ratio to its ceiling at least 0.85 × the empty store's.
 * - GET /payment with filters (status, a created_at range, limit 20) on the preloaded store, for
 *   the measured merchant: p50/p95/p99 over LIST_REQUESTS sequential requests. Target: p95 < 50 ms.
 * - EXPLAIN (ANALYZE, BUFFERS) of the dispatcher's claim (the repo's own statement and settings,
 *   with the parameters the dispatcher passes at its defaults), with CLAIM_PENDING deliveries due,
 *   on both databases: the delivered rows must not make it dearer (CLAIM_RULE). The plans of the
 *   list query, GET by id and the create's idempotency-key read are recorded too (their SQL is
 *   captured from the repo functions the routes call).
 *
 * Writes bench/history-latest.json; both databases are dropped at the end, also on failure.
 */
export interface HistoryBenchOptions {
  payments: number;
  merchants: number;
  deliveries: number;
  seconds: number;
  connections: number;
  progress(message: string): void;
}

const HISTORY_DAYS = 120;
const LIST_REQUESTS = 500;
const LIST_TARGET_P95_MS = 50;
/** The preloaded store's ratio to its ceiling must be at least this share of the empty store's. */
const RATIO_SHARE = 0.85;
/** Pending deliveries made due (in a rolled-back transaction) for the claim's plan. */
const CLAIM_PENDING = 200;
/** How many times each plan is taken; the median execution is kept (sub-millisecond timings are noisy). */
const PLAN_RUNS = 5;
/** Free space required on PostgreSQL's file system, as a multiple of the estimated database size. */
const DISK_FACTOR = 3;
/** The COPY goes in about this many chunks (a progress line each), after a first of FIRST_CHUNK payments. */
const CHUNKS = 20;
const FIRST_CHUNK = 50_000;

/**
 * The claim's rule: its execution on the preloaded database at most twice the empty one's (plus
 * 0.5 ms: both are well under a millisecond, where a scheduler hiccup is already 2×), and the
 * shared buffers it touches (hit + read) of the same order: at most twice the empty one's plus 10.
 */
const CLAIM_RULE = 'execution <= 2 x empty + 0.5 ms, buffers (hit + read) <= 2 x empty + 10';
const claimWithinRule = (empty: Plan, loaded: Plan) =>
  loaded.executionMs <= 2 * empty.executionMs + 0.5 && loaded.buffers <= 2 * empty.buffers + 10;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function base32(value: number, width: number): string {
  let out = '';
  for (let i = 0, v = value; i < width; i += 1, v = Math.floor(v / 32)) out = `${CROCKFORD[v % 32] as string}${out}`;
  return out;
}
/**
 * Ids of the shape the application makes (src/lib/ids.ts: prefix, 10 characters of millisecond
 * time, 16 "random" ones), so the primary keys hold them in time order as in production; the
 * random part is the row's number, which makes them unique and reproducible.
 */
const historyId = (prefix: string, ms: number, n: number) => `${prefix}_${base32(ms, 10)}${base32(n, 16)}`;
/** The merchants (made in SQL: preload() writes the same ids) and the endpoints: `mer_BENCH000…0042`, `we_BENCH000…0042`. */
const benchMerchantId = (m: number) => `mer_BENCH${String(m).padStart(21, '0')}`;
const benchEndpointId = (m: number) => `we_BENCH${String(m).padStart(21, '0')}`;

const sizeLabel = (n: number) =>
  n >= 1_000_000 && n % 1_000_000 === 0 ? `${n / 1_000_000}m` : n >= 1_000 && n % 1_000 === 0 ? `${n / 1_000}k` : String(n);

interface History {
  spread: Spread;
  merchantIds: string[];
  endpointIds: string[];
  endMs: number;
}

function historyOf(o: HistoryBenchOptions, measured: Merchant, nowMs: number): History {
  const merchantIds = [measured.id, ...Array.from({ length: o.merchants - 1 }, (_, i) => benchMerchantId(i + 1))];
  const endpointIds = Array.from({ length: o.merchants }, (_, m) => benchEndpointId(m));
  // The history's payments end two days ago, so that their final events (at most a day later)
  // are in the past too; what the measured windows create comes after all of it.
  const endMs = nowMs - 2 * DAY_MS;
  const prefixes = { payment: 'pay', attempt: 'att', event: 'evt' } as const;
  const spread: Spread = {
    from: 0,
    to: o.payments,
    startMs: endMs - HISTORY_DAYS * DAY_MS,
    spanMs: HISTORY_DAYS * DAY_MS,
    // Every M-th payment is merchant m's: each gets its share, spread over the whole history.
    merchantOf: (n) => merchantIds[n % o.merchants] as string,
    idOf: (kind, n, ms, slot) => historyId(prefixes[kind], ms, kind === 'event' ? 2 * n + slot : n),
  };
  return { spread, merchantIds, endpointIds, endMs };
}

/**
 * Deliveries [from, to) of `total`: delivery i is for event floor(i × 2N / total) of the 2N events
 * (so they spread evenly over the history), to its merchant's endpoint, succeeded at the first
 * attempt a second after the event.
 */
function* deliveryLines(h: History, total: number, from: number, to: number): Generator<string> {
  const events = 2 * h.spread.to;
  for (let i = from; i < to; i += 1) {
    const e = Math.floor((i * events) / total);
    const n = Math.floor(e / 2);
    const p = paymentOf(n, h.spread);
    const event = eventsOf(n, p, h.spread)[e % 2] as ReturnType<typeof eventsOf>[number];
    const endpoint = h.endpointIds[n % h.endpointIds.length] as string;
    const at = iso(event.atMs + 1_000);
    yield (
      [
        historyId('dlv', event.atMs, i),
        event.id,
        p.merchantId,
        'sandbox',
        endpoint,
        endpoint,
        'event',
        'succeeded',
        1,
        at,
        200,
        iso(event.atMs),
        at,
        at,
      ].join('\t') + '\n'
    );
  }
}
const DELIVERY_COLUMNS =
  'id, event_id, merchant_id, environment, endpoint_id, target_key, trigger, status, attempt_count, last_attempt_at, last_status_code, created_at, updated_at, completed_at';

/** Delivery numbers whose events belong to payments [a, b) (the inverse of deliveryLines' mapping). */
const deliveriesOf = (a: number, b: number, payments: number, total: number) =>
  [Math.ceil((a * total) / payments), Math.ceil((b * total) / payments)] as const;

/** Free kilobytes on the file system of PostgreSQL's data directory (df -Pk). */
async function freeKbOfDataDirectory(url: string): Promise<{ directory: string; freeKb: number }> {
  const [row] = (await adminQuery(url, 'SHOW data_directory')).rows as { data_directory: string }[];
  const directory = row?.data_directory ?? '';
  const out = execFileSync('df', ['-Pk', directory], { encoding: 'utf8' }).trim().split('\n').at(-1) ?? '';
  const freeKb = Number(out.split(/\s+/)[3]);
  if (!Number.isFinite(freeKb)) throw new Error(`df -Pk ${directory}: cannot read the free space from "${out}"`);
  return { directory, freeKb };
}

const databaseBytes = async (url: string) =>
  Number(((await adminQuery(url, 'SELECT pg_database_size(current_database()) AS b')).rows[0] as { b: string }).b);

interface Preload {
  seconds: number;
  rows_per_second: number;
  overview_refresh_ms: number;
  vacuum_analyze_s: number;
  estimated_bytes: number;
  free_kb_before: number;
  data_directory: string;
}

async function preload(url: string, secret: string, measured: Merchant, h: History, o: HistoryBenchOptions): Promise<Preload> {
  const started = performance.now();
  const startMs = h.spread.startMs;
  // The other merchants, in SQL; the API version is the measured merchant's (the CLI's).
  await adminQuery(
    url,
    `INSERT INTO merchants (id, name, api_version, created_at)
     SELECT 'mer_BENCH' || lpad(g::text, 21, '0'), 'History merchant ' || g, m.api_version, $2
       FROM generate_series(1, $1::int) AS g, (SELECT api_version FROM merchants WHERE id = $3) AS m`,
    [o.merchants - 1, iso(startMs - DAY_MS), measured.id],
  );
  // One endpoint per merchant, its signing secret sealed as the endpoint service seals it. They are
  // disabled (by the merchant, 'manual'): the server's dispatcher must not fan the measured
  // windows' events out to receivers nobody runs — which only the preloaded store would do.
  const box = createSecretBox(secret, SECRET_BOX_PURPOSE);
  await adminQuery(
    url,
    `INSERT INTO webhook_endpoints (id, merchant_id, environment, url, enabled_events, status, disabled_reason,
       secret_ciphertext, version, created_at, updated_at)
     SELECT t.id, t.merchant_id, 'sandbox', 'https://hooks.example.com/' || t.merchant_id, '["*"]', 'disabled', 'manual',
       t.secret, 2, $4, $4
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(id, merchant_id, secret)`,
    [
      h.endpointIds,
      h.merchantIds,
      h.endpointIds.map((id) => box.seal(generateWebhookSecret(), endpointSecretContext(id))),
      iso(startMs - DAY_MS),
    ],
  );
  // These events are history: fanned out long ago (their deliveries are written below). With the
  // trigger on, every one would be queued and the server's dispatcher would fan them all out again.
  await adminQuery(url, 'ALTER TABLE events DISABLE TRIGGER events_enqueue_fanout');
  const space = await freeKbOfDataDirectory(url);
  let estimatedBytes = 0;
  let rows = 0;
  try {
    const chunk = Math.max(1, Math.ceil(o.payments / CHUNKS));
    for (let a = 0, b = 0; a < o.payments; a = b) {
      // The first chunk is small: the disk is checked on what it extrapolates to before the bulk.
      b = Math.min(o.payments, a + (a === 0 ? Math.min(chunk, FIRST_CHUNK) : chunk));
      const sizeBefore = a === 0 ? await databaseBytes(url) : 0;
      const t0 = performance.now();
      await copyInto(url, 'payments', PAYMENT_COLUMNS, () => paymentLines(h.spread, a, b));
      await copyInto(url, 'payment_attempts', ATTEMPT_COLUMNS, () => attemptLines(h.spread, a, b));
      await copyInto(url, 'events', EVENT_COLUMNS, () => eventLines(h.spread, a, b));
      const [d0, d1] = deliveriesOf(a, b, o.payments, o.deliveries);
      await copyInto(url, 'webhook_deliveries', DELIVERY_COLUMNS, () => deliveryLines(h, o.deliveries, d0, d1));
      const chunkRows = (b - a) * 4 + (d1 - d0);
      rows += chunkRows;
      const s = (performance.now() - t0) / 1000;
      if (a === 0) {
        // The first chunk's growth, extrapolated: the whole database, then compared with the disk.
        const grew = (await databaseBytes(url)) - sizeBefore;
        estimatedBytes = Math.round((grew * o.payments) / (b - a));
        const needKb = (DISK_FACTOR * estimatedBytes) / 1024;
        o.progress(
          `first chunk grew the database by ${(grew / 2 ** 20).toFixed(0)} MiB: the whole history ~${(estimatedBytes / 2 ** 30).toFixed(2)} GiB; ` +
            `${(space.freeKb / 2 ** 20).toFixed(1)} GiB free on ${space.directory}'s file system`,
        );
        if (space.freeKb < needKb) {
          throw new Error(
            `not enough disk: the history needs ~${(estimatedBytes / 2 ** 30).toFixed(1)} GiB and the bench asks for ${DISK_FACTOR}× that free ` +
              `(${(needKb / 2 ** 20).toFixed(1)} GiB) on the file system of ${space.directory}; it has ${(space.freeKb / 2 ** 20).toFixed(1)} GiB. ` +
              'Free some space or ask for fewer --history-payments / --history-deliveries.',
          );
        }
      }
      o.progress(
        `COPY payments ${b.toLocaleString('en')}/${o.payments.toLocaleString('en')} (+ attempts, events, ${d1.toLocaleString('en')} deliveries): ` +
          `${Math.round(chunkRows / s).toLocaleString('en')} rows/s`,
      );
    }
  } finally {
    await adminQuery(url, 'ALTER TABLE events ENABLE TRIGGER events_enqueue_fanout');
  }
  const copySeconds = (performance.now() - started) / 1000;

  // A deployment with this history has its overview aggregates: build them now (the first, full
  // refresh), or the server's minutely job would do it during the measured windows.
  const store = await openPostgresStore({ connectionString: url, poolSize: 2, connectTimeoutMs: 10_000, statementTimeoutMs: 0 });
  let refreshMs: number;
  try {
    const t0 = performance.now();
    const refreshed = await refreshOverview({ store, clock: systemClock });
    refreshMs = Math.round(performance.now() - t0);
    o.progress(`overview aggregates built: ${refreshed.daysRecomputed} days in ${refreshMs} ms`);
  } finally {
    await store.close();
  }
  const t1 = performance.now();
  await adminQuery(url, 'VACUUM (ANALYZE)');
  await adminQuery(url, 'CHECKPOINT');
  const vacuumS = (performance.now() - t1) / 1000;
  o.progress(`VACUUM (ANALYZE) and CHECKPOINT in ${vacuumS.toFixed(1)} s`);
  return {
    seconds: round((performance.now() - started) / 1000, 1) ?? 0,
    rows_per_second: Math.round(rows / copySeconds),
    overview_refresh_ms: refreshMs,
    vacuum_analyze_s: round(vacuumS, 1) ?? 0,
    estimated_bytes: estimatedBytes,
    free_kb_before: space.freeKb,
    data_directory: space.directory,
  };
}

// ---------------------------------------------------------------------------------------------
// Plans

interface Plan {
  executionMs: number;
  /** Shared buffers of the whole statement (its top node's): hit, read, and the two together. */
  hit: number;
  read: number;
  buffers: number;
  text: string;
}

function parsePlan(text: string): Plan {
  // The first Buffers line is the top node's (it counts its children's); Planning has its own after.
  const buffers = /Buffers: shared ([^\n]*)/.exec(text)?.[1] ?? '';
  const hit = Number(/hit=(\d+)/.exec(buffers)?.[1] ?? 0);
  const read = Number(/read=(\d+)/.exec(buffers)?.[1] ?? 0);
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(text)?.[1] ?? Number.NaN);
  return { executionMs, hit, read, buffers: hit + read, text };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of one statement PLAN_RUNS times, each in a savepoint rolled back (an
 * analysed UPDATE really updates), after `settings` (SET LOCAL) in the same transaction, itself
 * rolled back. The run of median execution time is kept.
 */
async function explain(client: pg.Client, sql: { text: string; params: readonly unknown[] }, settings?: string): Promise<Plan> {
  const runs: Plan[] = [];
  await client.query('SAVEPOINT plans');
  try {
    if (settings !== undefined) await client.query(settings);
    for (let i = 0; i < PLAN_RUNS; i += 1) {
      await client.query('SAVEPOINT plan');
      const res = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) ${sql.text}`, [
        ...sql.params,
      ]);
      await client.query('ROLLBACK TO SAVEPOINT plan');
      runs.push(parsePlan(res.rows.map((r) => r['QUERY PLAN']).join('\n')));
    }
  } finally {
    await client.query('ROLLBACK TO SAVEPOINT plans');
  }
  runs.sort((a, b) => a.executionMs - b.executionMs);
  return runs[Math.floor(runs.length / 2)] as Plan;
}

/** The SQL a repo function sends (the routes call these functions), caught instead of run. */
async function sqlOf(call: (q: Queryable) => Promise<unknown>): Promise<{ text: string; params: unknown[] }> {
  const seen: { text: string; params: unknown[] }[] = [];
  await call({
    query: async (text, params) => {
      seen.push({ text, params: [...(params ?? [])] });
      return [];
    },
    exec: async () => undefined,
  });
  const [first] = seen;
  if (first === undefined) throw new Error('the repo function sent no SQL');
  return first;
}

interface Plans {
  claim: Plan;
  claim_pending: number;
  list: Plan;
  get_by_id: Plan;
  key_read: Plan;
  /** The create's transaction 2 on payments (decision 0024), for a payment already pending: no row matches, the path shows. */
  pending_update: Plan;
}

/**
 * The plans on one database, in one transaction rolled back at the end. The claim gets
 * CLAIM_PENDING due deliveries first (of the measured merchant's newest events, to an endpoint made
 * for them): the claim of an idle outbox reads nothing on any database, which would prove nothing.
 */
async function plansOf(url: string, store: BenchStore, sample: readonly CreatedSample[], listRange: ListRange): Promise<Plans> {
  const merchantId = store.merchant.id;
  const probe = sample[0];
  if (probe === undefined) throw new Error('no created payment to plan the reads with');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('BEGIN');
    const endpointId = 'we_PLAN0000000000000000000000';
    const box = createSecretBox(store.secret, SECRET_BOX_PURPOSE);
    await client.query(
      `INSERT INTO webhook_endpoints (id, merchant_id, environment, url, enabled_events, status, secret_ciphertext, version,
         created_at, updated_at)
       VALUES ($1, $2, 'sandbox', 'https://hooks.example.com/plan', '["*"]', 'enabled', $3, 1, now(), now())`,
      [endpointId, merchantId, box.seal(generateWebhookSecret(), endpointSecretContext(endpointId))],
    );
    const pending = await client.query(
      `INSERT INTO webhook_deliveries (id, event_id, merchant_id, environment, endpoint_id, target_key, trigger, status,
         next_attempt_at, created_at, updated_at)
       SELECT 'dlv_PLAN' || lpad((row_number() OVER ())::text, 22, '0'), e.id, e.merchant_id, e.environment, $2, $2, 'event',
              'pending', now() - interval '1 second', now(), now()
         FROM (SELECT id, merchant_id, environment FROM events WHERE merchant_id = $1 AND environment = 'sandbox'
                ORDER BY created_at DESC, id DESC LIMIT $3) AS e`,
      [merchantId, endpointId, CLAIM_PENDING],
    );
    const now = new Date();
    // What the dispatcher passes at its defaults (src/config.ts, src/jobs/webhook-dispatcher.ts):
    // WEBHOOK_CONCURRENCY 64 free slots, 4 per receiver, a scan of max(100, 8 × slots), a 60 s lease.
    const claim = await explain(
      client,
      claimStatement({
        now,
        leaseUntil: new Date(now.getTime() + 60_000),
        leaseToken: 'plan-lease-token',
        limit: 64,
        perTargetLimit: 4,
        inFlight: new Map(),
        scanLimit: 512,
      }),
      CLAIM_SETTINGS_SQL,
    );
    const list = await explain(
      client,
      await sqlOf((q) =>
        listPayments(
          q,
          merchantId,
          'sandbox',
          { status: 'succeeded', createdGte: new Date(listRange.gteMs), createdLte: new Date(listRange.lteMs) },
          { limit: 20 },
        ),
      ),
    );
    const getById = await explain(client, await sqlOf((q) => findPayment(q, merchantId, 'sandbox', probe.id)));
    const keyRead = await explain(
      client,
      selectKeyStatement({ merchantId, environment: 'sandbox', operation: CREATE_OPERATION, key: probe.key }),
    );
    const pendingUpdate = await explain(
      client,
      markPaymentPendingStatement({
        id: probe.id,
        channel: 'bank',
        paymentMethod: null,
        instructions: null,
        expiresAt: now,
        updatedAt: now,
        version: 2,
        routing: null,
      }),
    );
    return {
      claim,
      claim_pending: pending.rowCount ?? 0,
      list,
      get_by_id: getById,
      key_read: keyRead,
      pending_update: pendingUpdate,
    };
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring

async function measureStore(
  w: Windows,
  store: BenchStore,
  storeName: string,
  runId: string,
): Promise<{ rows: Row[]; sample: CreatedSample[] }> {
  w.progress(`${storeName}: create ceiling (${w.connections} concurrent creates, no HTTP in)`);
  const createCeiling = await measureDbCeiling(w, store, 'create', storeName);
  await settleAfterWrites(store.ceilingTarget);
  const serving = await serveCeiling(store);
  w.progress(`${storeName}: GET ceiling (bare route + one primary-key select)`);
  const getCeiling = await measureGetCeiling(w, serving, storeName);
  w.progress(`${storeName}: create (unique idempotency keys)`);
  const sample: CreatedSample[] = [];
  const create = await measureCreate(w, store, runId, storeName, sample, createCeiling.rps);
  await settleAfterWrites(store.target);
  w.progress(`${storeName}: GET /payment/{id}`);
  const get = await measureGet(w, store, storeName, sample, getCeiling.rps);
  return { rows: [createCeiling.row, getCeiling.row, create, get], sample };
}

interface ListRange {
  gteMs: number;
  lteMs: number;
}

/** Request i's created_at range: a week, ending i × 7 days back in the history (wrapping). */
function listRangeOf(h: History, i: number): ListRange {
  const lteMs = h.endMs - ((i * 7) % (HISTORY_DAYS - 7)) * DAY_MS;
  return { gteMs: lteMs - 7 * DAY_MS, lteMs };
}

/** GET /payment?status=succeeded&created_gte=…&created_lte=…&limit=20, sequentially. */
async function timeList(
  store: BenchStore,
  h: History,
  o: HistoryBenchOptions,
  storeName: string,
): Promise<Row & { p95_ms: number | null }> {
  const get = async (i: number) => {
    const range = listRangeOf(h, i);
    const query = new URLSearchParams({
      status: 'succeeded',
      created_gte: iso(range.gteMs),
      created_lte: iso(range.lteMs),
      limit: '20',
    });
    const started = performance.now();
    const res = await fetch(`${store.server.url}/payment?${query.toString()}`, {
      headers: { authorization: `Bearer ${store.merchant.sandboxKey}` },
    });
    const body = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`GET /payment: ${res.status} ${body.slice(0, 300)}`);
    const page = JSON.parse(body) as { data: unknown[] };
    if (page.data.length === 0) throw new Error(`GET /payment?${query.toString()} found nothing: the filter misses the history`);
    return ms;
  };
  for (let i = 0; i < 20; i += 1) await get(i);
  o.progress(`${storeName}: timing ${LIST_REQUESTS} sequential GET /payment (status, created_at range, limit 20)`);
  const latencies: number[] = [];
  for (let i = 0; i < LIST_REQUESTS; i += 1) latencies.push(await get(i));
  latencies.sort((a, b) => a - b);
  const p95 = round(quantile(latencies, 0.95), 2);
  return {
    name: 'list_filtered',
    store: storeName,
    kind: 'scenario',
    rps: null,
    p50_ms: round(quantile(latencies, 0.5), 2),
    p95_ms: p95,
    p99_ms: round(quantile(latencies, 0.99), 2),
    errors: 0,
    ceiling_rps: null,
    ratio: null,
    target: `p95 < ${LIST_TARGET_P95_MS} ms (p95 ${p95} ms, ${LIST_REQUESTS} sequential)`,
    target_met: p95 !== null && p95 < LIST_TARGET_P95_MS,
  };
}

/** The preloaded store's create and get, judged by the empty store's ratio to its ceiling. */
function judgeAgainstEmpty(r: Row, emptyRows: readonly Row[]): Row {
  const empty = emptyRows.find((e) => e.name === r.name);
  if (empty?.ratio === null || empty?.ratio === undefined || r.ratio === null) return r;
  const floor = round(RATIO_SHARE * empty.ratio, 3) ?? 0;
  return { ...r, target: `ratio >= ${RATIO_SHARE} x empty's ${empty.ratio} = ${floor}`, target_met: r.ratio >= floor };
}

const TABLES = ['payments', 'payment_attempts', 'events', 'webhook_deliveries', 'webhook_endpoints', 'merchants'] as const;

async function sizesOf(
  url: string,
): Promise<{ database_bytes: number; tables: Record<string, { rows: number; bytes: number }> }> {
  const tables: Record<string, { rows: number; bytes: number }> = {};
  for (const t of TABLES) {
    const [row] = (await adminQuery(url, `SELECT count(*) AS rows, pg_total_relation_size('${t}') AS bytes FROM ${t}`)).rows as {
      rows: string;
      bytes: string;
    }[];
    tables[t] = { rows: Number(row?.rows), bytes: Number(row?.bytes) };
  }
  return { database_bytes: await databaseBytes(url), tables };
}

function urlOf(store: BenchStore): string {
  if (store.target.kind !== 'postgres') throw new Error('the history bench runs on PostgreSQL');
  return store.target.url;
}

const SERVER_ENV = {
  // Retention is not what is measured: at its defaults (events 90 days, delivered deliveries 30)
  // its first tick, ten minutes after a start, would begin deleting the preloaded history under
  // the measured windows. Both stores' servers run with the same settings.
  EVENT_RETENTION_DAYS: '3650',
  WEBHOOK_DELIVERY_RETENTION_DAYS: '3650',
};

export async function runHistoryBench(o: HistoryBenchOptions): Promise<void> {
  for (const [name, value] of Object.entries({ payments: o.payments, merchants: o.merchants, deliveries: o.deliveries })) {
    if (!Number.isSafeInteger(value) || value < (name === 'deliveries' ? 0 : 1)) {
      throw new Error(`--history-${name}: a whole number, got ${value}`);
    }
  }
  if (o.payments < o.merchants) throw new Error('--history-payments: at least one payment per merchant');
  if (o.deliveries > 2 * o.payments) throw new Error('--history-deliveries: at most one per event (two per payment)');
  const before = machine();
  const runId = Date.now().toString(36);
  const label = `postgres_${sizeLabel(o.payments)}`;
  const w: Windows = {
    seconds: o.seconds,
    warmupSeconds: Math.min(5, o.seconds / 2),
    connections: o.connections,
    progress: o.progress,
  };
  const secret = newSecret();
  const db = await freshDatabase('bench_history');
  const target: StoreTarget = { kind: 'postgres', url: db.url };
  let empty: BenchStore | undefined;
  let loaded: BenchStore | undefined;
  try {
    o.progress(`database ${db.name}: creating the measured merchant (migrations)`);
    const merchant = await createMerchant(target, secret, 'History bench');
    const h = historyOf(o, merchant, Date.now());
    o.progress(
      `preloading ${o.payments.toLocaleString('en')} payments of ${o.merchants.toLocaleString('en')} merchants over ${HISTORY_DAYS} days ` +
        `and ${o.deliveries.toLocaleString('en')} delivered webhooks, by COPY`,
    );
    const loadedPreload = await preload(db.url, secret, merchant, h, o);
    const loadedSizes = await sizesOf(db.url);
    o.progress(
      `preloaded in ${loadedPreload.seconds} s: database ${(loadedSizes.database_bytes / 2 ** 30).toFixed(2)} GiB ` +
        `(estimated ${(loadedPreload.estimated_bytes / 2 ** 30).toFixed(2)} GiB)`,
    );
    const planRange = listRangeOf(h, 0);

    o.progress('postgres_empty: starting its server and ceiling process (fresh databases)');
    empty = await setupStore('postgres', [], { separateProviders: true, serverEnv: SERVER_ENV });
    const emptyRun = await measureStore(w, empty, 'postgres_empty', runId);
    o.progress('postgres_empty: plans');
    const emptyUrl = urlOf(empty);
    const emptyPlans = await plansOf(emptyUrl, empty, emptyRun.sample, planRange);
    const emptySizes = await sizesOf(emptyUrl);
    await empty.cleanup();
    empty = undefined;

    o.progress(`${label}: starting its server (on the preloaded database) and ceiling process`);
    loaded = await setupStore('postgres', [], {
      separateProviders: true,
      serverEnv: SERVER_ENV,
      database: { url: db.url, secret, merchant },
    });
    const loadedRun = await measureStore(w, loaded, label, runId);
    const list = await timeList(loaded, h, o, label);
    o.progress(`${label}: plans`);
    const loadedPlans = await plansOf(db.url, loaded, loadedRun.sample, planRange);
    await loaded.cleanup();
    loaded = undefined;

    const rows: Row[] = [...emptyRun.rows, ...loadedRun.rows.map((r) => judgeAgainstEmpty(r, emptyRun.rows)), list];
    const claimPass = claimWithinRule(emptyPlans.claim, loadedPlans.claim);
    console.log('');
    printTable(rows, []);
    const planLine = (name: string, e: Plan, l: Plan) =>
      `${name.padEnd(12)} empty ${e.executionMs.toFixed(3)} ms, ${e.hit} hit / ${e.read} read; ` +
      `${label} ${l.executionMs.toFixed(3)} ms, ${l.hit} hit / ${l.read} read`;
    console.log('');
    console.log(`plans (median of ${PLAN_RUNS} EXPLAIN ANALYZE runs, shared buffers of the whole statement):`);
    console.log(
      `${planLine('claim', emptyPlans.claim, loadedPlans.claim)} — ${claimPass ? 'met' : 'MISSED'} (${CLAIM_RULE}; ` +
        `${emptyPlans.claim_pending} / ${loadedPlans.claim_pending} due)`,
    );
    console.log(planLine('list', emptyPlans.list, loadedPlans.list));
    console.log(planLine('get by id', emptyPlans.get_by_id, loadedPlans.get_by_id));
    console.log(planLine('key read', emptyPlans.key_read, loadedPlans.key_read));
    const scanned = (p: Plan) => /Index Scan using (\S+) on payments/.exec(p.text)?.[1] ?? 'no index scan';
    console.log(
      `${planLine('tx2 payment', emptyPlans.pending_update, loadedPlans.pending_update)} ` +
        `(${scanned(emptyPlans.pending_update)} / ${scanned(loadedPlans.pending_update)})`,
    );
    const pass = rows.every((r) => r.target_met !== false) && claimPass;
    const result = {
      scenario: 'history',
      machine: { ...before, load_average_after: machine().load_average },
      options: {
        payments: o.payments,
        merchants: o.merchants,
        deliveries: o.deliveries,
        history_days: HISTORY_DAYS,
        window_seconds: w.seconds,
        warmup_seconds: w.warmupSeconds,
        connections: w.connections,
      },
      preload: loadedPreload,
      sizes: {
        note: 'postgres_empty after its measured windows; the preloaded database after the preload, before its windows',
        postgres_empty: emptySizes,
        [label]: loadedSizes,
      },
      scenarios: rows,
      plans: {
        runs: PLAN_RUNS,
        claim: {
          rule: CLAIM_RULE,
          pass: claimPass,
          pending: { postgres_empty: emptyPlans.claim_pending, [label]: loadedPlans.claim_pending },
          postgres_empty: emptyPlans.claim,
          [label]: loadedPlans.claim,
        },
        list: { postgres_empty: emptyPlans.list, [label]: loadedPlans.list },
        get_by_id: { postgres_empty: emptyPlans.get_by_id, [label]: loadedPlans.get_by_id },
        key_read: { postgres_empty: emptyPlans.key_read, [label]: loadedPlans.key_read },
        pending_update: { postgres_empty: emptyPlans.pending_update, [label]: loadedPlans.pending_update },
      },
      pass,
    };
    await writeJson(join(REPO_ROOT, 'bench/history-latest.json'), result);
    console.log(`\n${pass ? 'all targets met' : 'a target was MISSED'}; wrote bench/history-latest.json`);
    if (!pass) process.exitCode = 1;
  } finally {
    await loaded?.cleanup().catch((e: unknown) => o.progress(`cleanup failed: ${String(e)}`));
    await empty?.cleanup().catch((e: unknown) => o.progress(`cleanup failed: ${String(e)}`));
    await db.drop();
    o.progress(`dropped ${db.name}`);
  }
}
