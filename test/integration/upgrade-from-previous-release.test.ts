import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadMigrations, migrate, MigrationError } from '../../src/db/migrate.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { openPostgresStore } from '../../src/db/postgres-store.ts';
import type { Store } from '../../src/db/store.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { createTestApp, json, PUBLIC_BASE_URL, ref, TEST_SECRET, type TestApp } from '../harness/test-app.ts';
import {
  createPostgresSchema,
  dropPostgresSchema,
  postgresUrlWithSchema,
  TEST_STORE,
  type TestStore,
} from '../harness/test-store.ts';

/**
 * The upgrade from the previous release (docs/operations.md, "Upgrade"): a store the previous
 * release migrated and filled through its own API (test/fixtures/upgrade, made by
 * scripts/make-upgrade-fixture.ts) is loaded as it is, this build's migrations run over it, and this
 * build serves it: the old payments, checkouts, refunds, events, idempotent answers and ledger read
 * back unchanged, and new work (payments, checkouts, payment links, payer-data erasure) runs on it.
 * Then the other direction: a store whose schema is newer than this build is refused at start.
 */
const RELEASE = 'a88605a';
const FIXTURE_DIR = join(import.meta.dirname, '../fixtures/upgrade');
const FIXTURE_SQL = readFileSync(join(FIXTURE_DIR, `release-${RELEASE}.sql`), 'utf8');

interface Manifest {
  release: string;
  generated_at: string;
  highest_migration: string;
  deployment_secret: string;
  public_base_url: string;
  merchants: Record<'a' | 'b', { id: string; sandbox_key: string }>;
  idempotent_requests: {
    merchant: 'a' | 'b';
    method: 'POST';
    path: string;
    idempotency_key: string;
    body: string;
    status: number;
    response: string;
  }[];
  payments: Record<string, Record<string, unknown>>;
  checkouts: Record<string, Record<string, unknown>>;
  events: Record<'a' | 'b', string[]>;
  balance_a: Record<string, unknown>;
  row_counts: Record<string, number>;
}
const manifest = JSON.parse(readFileSync(join(FIXTURE_DIR, `release-${RELEASE}.json`), 'utf8')) as Manifest;
const fixtureVersion = Number(manifest.highest_migration.slice(0, 4));

/** The fixture loaded into a fresh store of the kind under test (not yet migrated by this build). */
async function loadFixture(options: { dataDir?: string } = {}): Promise<TestStore> {
  if (TEST_STORE === 'embedded') {
    const store = await openEmbeddedStore({
      owner: 'upgrade-test',
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    });
    await store.exec(FIXTURE_SQL);
    return { store, url: undefined, schema: undefined, close: () => store.close() };
  }
  const schema = await createPostgresSchema();
  const url = postgresUrlWithSchema(schema);
  const store = await openPostgresStore({
    connectionString: url,
    poolSize: 10,
    connectTimeoutMs: 5_000,
    statementTimeoutMs: 30_000,
  });
  await store.exec(FIXTURE_SQL);
  return {
    store,
    url,
    schema,
    async close() {
      await store.close();
      await dropPostgresSchema(schema);
    },
  };
}

async function migrationNames(store: Store): Promise<string[]> {
  const rows = await store.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
  return rows.map((r) => r.name);
}

describe(`upgrade from release ${RELEASE} (${TEST_STORE})`, () => {
  let t: TestApp;
  let store: Store;
  let fixtureMigrations: string[];
  let applied: string[];
  /** Rows per table right after the migrations (the test app then adds merchants of its own). */
  const migratedCounts = new Map<string, number>();
  const key = (who: 'a' | 'b') => manifest.merchants[who].sandbox_key;
  /** Which fixture merchant owns each fixture payment. */
  const owner = new Map<string, 'a' | 'b'>();
  const ownerOf = (id: string) => owner.get(id) ?? assert.fail(`no owner for ${id}`);
  const checkoutPayments = new Set(
    Object.values(manifest.checkouts).flatMap((c) => (c['payments'] as { id: string }[]).map((p) => p.id)),
  );

  before(async () => {
    assert.equal(manifest.release, RELEASE);
    // The fixture's API keys were hashed with the harness's deployment secret, its pay_url values
    // written with the harness's public base URL: otherwise nothing below could compare.
    assert.equal(manifest.deployment_secret, TEST_SECRET, 'regenerate the fixture with the harness secret');
    assert.equal(manifest.public_base_url, PUBLIC_BASE_URL);
    const testStore = await loadFixture();
    store = testStore.store;
    fixtureMigrations = await migrationNames(store);
    applied = (await migrate(store)).applied;
    for (const table of Object.keys(manifest.row_counts)) {
      const [row] = await store.query<{ n: bigint }>(`SELECT count(*) AS n FROM "${table}"`);
      migratedCounts.set(table, Number(row?.n));
    }
    for (const row of await store.query<{ id: string; merchant_id: string }>('SELECT id, merchant_id FROM payments')) {
      owner.set(row.id, row.merchant_id === manifest.merchants.b.id ? 'b' : 'a');
    }
    // The clock stands just after the fixture was made: its idempotency keys are still live.
    const clock = new ManualClock(new Date(Date.parse(manifest.generated_at) + 10 * 60_000));
    t = await createTestApp({ testStore, clock, webhookAllowlist: ['127.0.0.1'] });
  });
  after(async () => {
    await t.close();
    await t.testStore.close();
  });

  it(`holds the previous release's migrations (up to ${manifest.highest_migration}), and this build applies only the later ones`, async () => {
    assert.equal(fixtureMigrations.at(-1), manifest.highest_migration);
    assert.deepEqual(
      fixtureMigrations,
      loadMigrations()
        .filter((m) => m.version <= fixtureVersion)
        .map((m) => m.name),
      "the fixture's bookkeeping names exactly this build's migrations up to its highest",
    );
    assert.deepEqual(
      applied,
      loadMigrations()
        .filter((m) => m.version > fixtureVersion)
        .map((m) => m.name),
    );
    assert.deepEqual(
      await migrationNames(store),
      loadMigrations().map((m) => m.name),
    );
    // A second start applies nothing (and the checksums of the old ones still match).
    assert.deepEqual((await migrate(store)).applied, []);
  });

  it('keeps every row of the previous release', async () => {
    for (const [table, count] of Object.entries(manifest.row_counts)) {
      // schema_migrations gained this build's rows; every other table holds what it held.
      const expected = table === 'schema_migrations' ? count + applied.length : count;
      assert.equal(migratedCounts.get(table), expected, table);
    }
    assert.ok((manifest.row_counts['payments'] ?? 0) >= 20, 'the fixture has a history worth upgrading');
  });

  it('answers GET /payment/{id} for every payment of the fixture as the previous release did', async () => {
    const statuses = new Set<string>();
    for (const [id, before] of Object.entries(manifest.payments)) {
      const res = await t.call('GET', `/payment/${id}`, { key: key(ownerOf(id)) });
      assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
      const now = json(res);
      // Every field the previous release answered is answered the same (a new build may add fields).
      for (const [field, value] of Object.entries(before)) {
        assert.deepEqual(now[field], value, `${id}.${field}`);
      }
      statuses.add(`${String(before['channel'])}:${String(before['status'])}`);
    }
    for (const channel of ['bank', 'ewallet', 'counter']) {
      for (const status of ['pending', 'succeeded', 'canceled', 'expired']) {
        assert.ok(statuses.has(`${channel}:${status}`), `the fixture has a ${status} ${channel} payment`);
      }
    }
    const all = Object.values(manifest.payments);
    assert.ok(all.some((p) => p['status'] === 'failed'));
    assert.ok(all.some((p) => p['status'] === 'reversed'));
    assert.ok(all.some((p) => p['late_payment'] !== null));
    assert.ok(all.some((p) => p['settlement_id'] !== null));
    assert.ok(all.some((p) => Number(p['amount_refunded']) > 0));
  });

  it('replays every idempotency key of the fixture with the stored answer, byte for byte', async () => {
    const paths = new Set<string>();
    for (const r of manifest.idempotent_requests) {
      // The very request of then: same key, same bytes (or no body, as a full refund was sent).
      const res = await t.call(r.method, r.path, {
        key: key(r.merchant),
        ...(r.body === '' ? {} : { rawBody: r.body }),
        headers: { 'idempotency-key': r.idempotency_key },
      });
      assert.equal(res.statusCode, r.status, `${r.path}: ${res.body}`);
      assert.equal(res.body, r.response, `${r.path} ${r.idempotency_key}`);
      assert.equal(res.headers['idempotent-replayed'], 'true');
      paths.add(r.path.replace(/(pay|cs)_[0-9A-Z]+/, '{id}'));
    }
    assert.deepEqual([...paths].sort(), ['/checkout/create', '/payment/create', '/payment/{id}/refund']);
  });

  it('reads the refunds and the checkouts (one completed, one with two selections) as before', async () => {
    const refunds = manifest.idempotent_requests.filter((r) => r.path.endsWith('/refund'));
    assert.equal(refunds.length, 2);
    for (const r of refunds) {
      const created = JSON.parse(r.response) as Record<string, unknown>;
      const res = await t.call('GET', `/refund/${String(created['id'])}`, { key: key(r.merchant) });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res)['amount'], created['amount']);
      assert.equal(json(res)['payment_id'], created['payment_id']);
    }
    for (const [id, before] of Object.entries(manifest.checkouts)) {
      const res = await t.call('GET', `/checkout/${id}`, { key: key('a') });
      assert.equal(res.statusCode, 200, `${id}: ${res.body}`);
      const now = json(res);
      for (const [field, value] of Object.entries(before)) assert.deepEqual(now[field], value, `${id}.${field}`);
    }
    const checkouts = Object.values(manifest.checkouts);
    assert.ok(checkouts.some((c) => c['status'] === 'completed'));
    assert.ok(checkouts.some((c) => c['status'] === 'expired'));
    assert.ok(checkouts.some((c) => c['status'] === 'open' && (c['payments'] as unknown[]).length === 2));
  });

  it("lists the fixture's events, and its webhook endpoints with their deliveries", async () => {
    for (const who of ['a', 'b'] as const) {
      const ids: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const res = await t.call('GET', `/event?limit=20${after === undefined ? '' : `&starting_after=${after}`}`, {
          key: key(who),
        });
        assert.equal(res.statusCode, 200, res.body);
        const body = json(res) as { data: { id: string }[]; has_more: boolean };
        ids.push(...body.data.map((e) => e.id));
        if (!body.has_more) break;
        after = body.data.at(-1)?.id;
      }
      assert.deepEqual(ids, manifest.events[who], who);
    }
    const endpoints = await t.call('GET', '/webhook_endpoint', { key: key('a') });
    assert.equal(endpoints.statusCode, 200, endpoints.body);
    const urls = (json(endpoints)['data'] as { url: string }[]).map((e) => new URL(e.url).pathname).sort();
    assert.deepEqual(urls, ['/fail-a', '/ok-a'], 'the deleted endpoint stays deleted');
    const newest = manifest.events.a[0];
    const deliveries = await t.call('GET', `/event/${String(newest)}/deliveries`, { key: key('a') });
    assert.equal(deliveries.statusCode, 200, deliveries.body);
    assert.ok((json(deliveries)['data'] as unknown[]).length >= 1, deliveries.body);
  });

  it('keeps the ledger balanced, with the same balances', async () => {
    assert.deepEqual(await verifyLedger(store), []);
    const res = await t.call('GET', '/balance?verify=true', { key: key('a') });
    assert.equal(res.statusCode, 200, res.body);
    const now = json(res) as { balances: unknown; verification: { status: string; violations: unknown[] } };
    assert.deepEqual(now.balances, manifest.balance_a['balances']);
    assert.deepEqual(now.verification.violations, []);
    assert.equal(now.verification.status, 'ok');
  });

  it('runs new work on the upgraded store: a payment, a checkout, a payment link, a payer-data erasure', async () => {
    // A payment of an old merchant, paid.
    const created = await t.call('POST', '/payment/create', {
      key: key('a'),
      body: { amount: 99000, currency: 'IDR', reference_no: ref('after-upgrade'), email: 'new@example.com', channel: 'bank' },
      headers: { 'idempotency-key': ref('after-upgrade-key') },
    });
    assert.equal(created.statusCode, 201, created.body);
    const paymentId = String(json(created)['id']);
    const paid = await t.call('POST', `/sandbox/payment/${paymentId}/simulate`, {
      key: key('a'),
      body: { outcome: 'succeeded' },
    });
    assert.equal(paid.statusCode, 202, paid.body);
    await t.deliverNotifications();
    const payment = await t.call('GET', `/payment/${paymentId}`, { key: key('a') });
    assert.equal(json(payment)['status'], 'succeeded', payment.body);

    // A checkout, selected.
    const checkout = await t.call('POST', '/checkout/create', {
      key: key('a'),
      body: { amount: 120000, currency: 'IDR', reference_no: ref('after-upgrade-cs') },
    });
    assert.equal(checkout.statusCode, 201, checkout.body);
    const cs = json(checkout);
    const selected = await t.call('POST', `/checkout/${String(cs['id'])}/select`, {
      key: null,
      body: { client_secret: cs['client_secret'], channel: 'counter' },
    });
    assert.equal(selected.statusCode, 200, selected.body);

    // A payment link (a table the previous release did not have), and a visit to it.
    const link = await t.call('POST', '/payment_link/create', { key: key('a'), body: { amount: 75000, currency: 'IDR' } });
    assert.equal(link.statusCode, 201, link.body);
    const visit = await t.call('POST', `/payment_link/${String(json(link)['id'])}/checkout`, { key: null });
    assert.equal(visit.statusCode, 201, visit.body);

    // Erase the payer data of a final payment the previous release wrote: its e-mail is then
    // nowhere in the store (payments, events, stored answers, deliveries), whatever release wrote it.
    const [target, before] = Object.entries(manifest.payments).find(
      ([id, p]) => p['status'] === 'succeeded' && p['late_payment'] === null && ownerOf(id) === 'a' && !checkoutPayments.has(id),
    ) ?? [undefined, undefined];
    assert.ok(target !== undefined && before !== undefined, 'a succeeded fixture payment');
    const email = String(before['email']);
    assert.ok((await textColumnsContaining(store, email)).length > 0, 'the e-mail is in the store before');
    const erased = await t.call('POST', `/payment/${target}/erase_payer_data`, { key: key('a') });
    assert.equal(erased.statusCode, 200, erased.body);
    assert.equal(json(erased)['email'], null);
    assert.equal(json(erased)['amount'], before['amount']);
    assert.equal(json(erased)['status'], before['status']);
    assert.deepEqual(await textColumnsContaining(store, email), []);

    assert.deepEqual(await verifyLedger(store), []);
  });
});

describe(`a store whose schema is newer than this build (${TEST_STORE})`, () => {
  const latest = loadMigrations().at(-1);
  assert.ok(latest !== undefined);
  const future = `${String(latest.version + 1000).padStart(4, '0')}_from_a_newer_release`;
  const message = new RegExp(`${future}.*newer than this build.*${latest.name}`);

  it('is refused by migrate, naming both versions, and left unchanged', async () => {
    const ts = await loadFixture();
    try {
      await migrate(ts.store);
      await ts.store.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, 'x')", [
        latest.version + 1000,
        future,
      ]);
      await assert.rejects(migrate(ts.store), (e: unknown) => e instanceof MigrationError && message.test(e.message));
      assert.equal((await migrationNames(ts.store)).at(-1), future);
    } finally {
      await ts.close();
    }
  });

  it('stops the server at start with exit code 2 and that message', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tributary-upgrade-'));
    const ts = await loadFixture(TEST_STORE === 'embedded' ? { dataDir } : {});
    try {
      await migrate(ts.store);
      await ts.store.query("INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, 'x')", [
        latest.version + 1000,
        future,
      ]);
      // The embedded store is one process's: hand the directory over to the server.
      if (TEST_STORE === 'embedded') await ts.store.close();
      const env: Record<string, string> = {
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'silent',
        ...(TEST_STORE === 'embedded' ? { DATA_DIR: dataDir } : { DATABASE_URL: String(ts.url), TRIBUTARY_SECRET: TEST_SECRET }),
      };
      const result = await runServer(env);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(`^tributary: .*${message.source}`, 'm'));
    } finally {
      if (TEST_STORE === 'postgres') await ts.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Starts `src/main.ts` as `npm start` does and waits for it to exit (bounded: a server that starts is a failure). */
function runServer(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const { DATABASE_URL: _url, DATA_DIR: _dir, TRIBUTARY_SECRET: _secret, ...inherited } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not refuse to start within 60 s:\n${stderr}`));
    }, 60_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** `table.column` for every text-like column of the store that contains `needle` (case-insensitive). */
async function textColumnsContaining(store: Store, needle: string): Promise<string[]> {
  const columns = await store.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'ARRAY', 'character')`,
  );
  assert.ok(columns.length > 20, 'the scan sees the schema');
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [row] = await store.query<{ n: bigint }>(
      `SELECT count(*) AS n FROM "${table_name}" WHERE "${column_name}"::text ILIKE '%' || $1 || '%'`,
      [needle],
    );
    if (Number(row?.n) > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}
