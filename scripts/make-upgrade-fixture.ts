import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';

/**
 * Makes the upgrade fixture (test/fixtures/upgrade/README.md): runs the PREVIOUS release's server
 * against a fresh PostgreSQL schema, gives it a representative history through its own API (every
 * channel, every payment state it can reach, refunds, a settlement, checkouts, webhook endpoints and
 * deliveries, idempotency keys), stops it, and writes
 *
 *   test/fixtures/upgrade/release-<commit>.sql    pg_dump of that schema (schema + data), made
 *                                                 loadable into any schema and into PGlite
 *   test/fixtures/upgrade/release-<commit>.json   what the test needs to call it: API keys, the
 *                                                 requests sent with an Idempotency-Key and their
 *                                                 first answers, and the old release's answers
 *
 * Usage (the previous release checked out and installed elsewhere; PostgreSQL on 127.0.0.1:5432):
 *   git clone -q . /tmp/prev-release && git -C /tmp/prev-release checkout -q <commit> && (cd /tmp/prev-release && npm ci)
 *   node --import tsx scripts/make-upgrade-fixture.ts /tmp/prev-release
 *
 * Only loopback: the server, its in-process sandbox providers and the webhook receiver all listen on
 * 127.0.0.1. The schema is dropped at the end, also on failure.
 */

/** The test harness's deployment secret (test/harness/test-app.ts): API keys are hashed with it. */
const DEPLOYMENT_SECRET = 'test-secret-test-secret-test-secret-0001';
/** The test harness's PUBLIC_BASE_URL, so that stored pay_url values read the same in the test. */
const PUBLIC_BASE_URL = 'http://127.0.0.1:8080';
const PG_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const WAIT_MS = 30_000;

const prevDir = resolve(process.argv[2] ?? '/tmp/prev-release');
const outDir = resolve(import.meta.dirname, '../test/fixtures/upgrade');
const commit = execFileSync('git', ['-C', prevDir, 'rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8' }).trim();
const schema = `upgrade_fixture_${randomBytes(4).toString('hex')}`;
const schemaUrl = (() => {
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
})();

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  await new Promise<void>((r) => server.close(() => r()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const env = (port: number): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  DATABASE_URL: schemaUrl,
  TRIBUTARY_SECRET: DEPLOYMENT_SECRET,
  HOST: '127.0.0.1',
  PORT: String(port),
  PUBLIC_BASE_URL,
  WEBHOOK_ALLOWLIST: '127.0.0.1',
  RATE_LIMIT_PER_SECOND: '0',
  LOG_LEVEL: 'warn',
});

function cli(args: string[]): unknown {
  const out = execFileSync('node', ['bin/tributary.js', ...args], { cwd: prevDir, env: env(0), encoding: 'utf8' });
  return JSON.parse(out);
}

/** A webhook receiver: endpoints whose path starts with /fail answer 500, the others 204. */
function startReceiver(): Promise<{ server: Server; url: string; received: Map<string, number> }> {
  const received = new Map<string, number>();
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.set(req.url ?? '', (received.get(req.url ?? '') ?? 0) + 1);
      res.statusCode = req.url?.startsWith('/fail') === true ? 500 : 204;
      res.end();
    });
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      r({ server, url: `http://127.0.0.1:${address.port}`, received });
    }),
  );
}

interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

interface Recorded {
  merchant: 'a' | 'b';
  method: 'POST';
  path: string;
  idempotency_key: string;
  body: string;
  status: number;
  response: string;
}

async function main(): Promise<void> {
  await admin(`CREATE SCHEMA ${schema}`);
  let server: ChildProcess | undefined;
  const receiver = await startReceiver();
  try {
    // Merchants first (the CLI migrates the empty schema to the previous release's latest).
    const a = cli(['merchants', 'create', '--name', 'Upgrade merchant A', '--json']) as {
      id: string;
      api_keys: { sandbox: string };
    };
    const b = cli(['merchants', 'create', '--name', 'Upgrade merchant B', '--json']) as typeof a;
    const keys = { a: a.api_keys.sandbox, b: b.api_keys.sandbox };

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = spawn('node', ['--import', 'tsx', 'src/main.ts'], { cwd: prevDir, env: env(port), stdio: 'inherit' });
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const ready = await fetch(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) throw new Error('the previous release did not become ready');
      await pause(200);
    }

    const recorded: Recorded[] = [];
    let counter = 0;
    const call = async (
      who: 'a' | 'b',
      method: 'GET' | 'POST' | 'DELETE',
      path: string,
      body?: unknown,
      options: { idempotent?: boolean; key?: string | null } = {},
    ): Promise<Answer> => {
      const headers: Record<string, string> = {};
      const key = options.key === undefined ? keys[who] : options.key;
      if (key !== null) headers['authorization'] = `Bearer ${key}`;
      const text = body === undefined ? undefined : JSON.stringify(body);
      if (text !== undefined) headers['content-type'] = 'application/json';
      counter += 1;
      const idempotencyKey = options.idempotent === true ? `upgrade-${commit}-${counter}` : undefined;
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      const res = await fetch(`${base}${path}`, { method, headers, ...(text === undefined ? {} : { body: text }) });
      const answer = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${answer}`);
      if (idempotencyKey !== undefined && method === 'POST') {
        recorded.push({
          merchant: who,
          method,
          path,
          idempotency_key: idempotencyKey,
          body: text ?? '',
          status: res.status,
          response: answer,
        });
      }
      return { status: res.status, text: answer, json: answer === '' ? {} : (JSON.parse(answer) as Record<string, unknown>) };
    };
    const waitFor = async (who: 'a' | 'b', path: string, done: (body: Record<string, unknown>) => boolean) => {
      const until = Date.now() + WAIT_MS;
      for (;;) {
        const got = await call(who, 'GET', path);
        if (done(got.json)) return got.json;
        if (Date.now() > until) throw new Error(`${path} never reached the expected state: ${got.text}`);
        await pause(200);
      }
    };
    const status = (who: 'a' | 'b', id: string, wanted: string) => waitFor(who, `/payment/${id}`, (p) => p['status'] === wanted);

    // Webhook endpoints before the payments, so that their events are delivered.
    await call('a', 'POST', '/webhook_endpoint/create', {
      url: `${receiver.url}/ok-a`,
      description: 'all events',
    });
    await call('a', 'POST', '/webhook_endpoint/create', {
      url: `${receiver.url}/fail-a`,
      enabled_events: ['payment.succeeded'],
      description: 'always 500',
    });
    const hookGone = await call('a', 'POST', '/webhook_endpoint/create', { url: `${receiver.url}/gone-a` });
    await call('a', 'DELETE', `/webhook_endpoint/${String(hookGone.json['id'])}`);
    await call('b', 'POST', '/webhook_endpoint/create', { url: `${receiver.url}/ok-b` });

    let refNo = 0;
    const create = async (who: 'a' | 'b', channel: string, extra: Record<string, unknown> = {}) => {
      refNo += 1;
      const res = await call(
        who,
        'POST',
        '/payment/create',
        {
          amount: 150000 + refNo * 1000,
          currency: 'IDR',
          reference_no: `upgrade-${who}-${refNo}`,
          email: `payer${refNo}@example.com`,
          description: `fixture payment ${refNo} (${channel})`,
          metadata: { order: String(refNo) },
          channel,
          ...extra,
        },
        { idempotent: true },
      );
      return String(res.json['id']);
    };
    const simulate = (who: 'a' | 'b', id: string, outcome: string, amount?: number) =>
      call(who, 'POST', `/sandbox/payment/${id}/simulate`, { outcome, ...(amount === undefined ? {} : { amount }) });
    const paid = async (who: 'a' | 'b', channel: string) => {
      const id = await create(who, channel);
      await simulate(who, id, 'succeeded');
      await status(who, id, 'succeeded');
      return id;
    };

    for (const channel of ['bank', 'ewallet', 'counter']) {
      await create('a', channel); // pending
      await paid('a', channel); // succeeded
      const canceled = await create('a', channel);
      await call('a', 'POST', `/payment/${canceled}/cancel`);
      await status('a', canceled, 'canceled');
      const expired = await create('a', channel);
      await simulate('a', expired, 'expired');
      await status('a', expired, 'expired');
    }
    await simulate('a', await create('a', 'ewallet'), 'failed');
    // Late payments: the payer pays after the cancel / the expiry.
    const lateBank = await create('a', 'bank');
    await call('a', 'POST', `/payment/${lateBank}/cancel`);
    await status('a', lateBank, 'canceled');
    await simulate('a', lateBank, 'succeeded');
    const lateCounter = await create('a', 'counter');
    await simulate('a', lateCounter, 'expired');
    await status('a', lateCounter, 'expired');
    await simulate('a', lateCounter, 'succeeded');
    // A bank payment paid short, one paid over.
    await simulate('a', await create('a', 'bank'), 'succeeded', 100000);
    await simulate('a', await create('a', 'bank'), 'succeeded', 200000);
    // Refunds: partial on a bank payment, full on an e-wallet one.
    const refundedBank = await paid('a', 'bank');
    await call('a', 'POST', `/payment/${refundedBank}/refund`, { amount: 50000 }, { idempotent: true });
    const refundedWallet = await paid('a', 'ewallet');
    await call('a', 'POST', `/payment/${refundedWallet}/refund`, undefined, { idempotent: true });
    // The provider takes one back; another is settled (the settlement report is ingested at once).
    const reversed = await paid('a', 'ewallet');
    await simulate('a', reversed, 'reversed');
    await status('a', reversed, 'reversed');
    const settled = await paid('a', 'bank');
    await simulate('a', settled, 'settled');
    // Merchant B: one paid, one pending.
    await paid('b', 'counter');
    await create('b', 'bank');

    // Checkouts: open untouched; open with two selections (bank, then e-wallet); completed; expired.
    const checkout = async (extra: Record<string, unknown> = {}) => {
      refNo += 1;
      const res = await call(
        'a',
        'POST',
        '/checkout/create',
        {
          amount: 250000 + refNo * 1000,
          currency: 'IDR',
          reference_no: `upgrade-checkout-${refNo}`,
          email: `buyer${refNo}@example.com`,
          success_url: 'https://shop.example.com/thanks',
          ...extra,
        },
        { idempotent: true },
      );
      return { id: String(res.json['id']), secret: String(res.json['client_secret']) };
    };
    const select = (c: { id: string; secret: string }, channel: string) =>
      call('a', 'POST', `/checkout/${c.id}/select`, { client_secret: c.secret, channel }, { key: null });
    await checkout();
    const twice = await checkout({ channels: ['bank', 'ewallet'] });
    await select(twice, 'bank');
    await select(twice, 'ewallet');
    const completed = await checkout();
    const selected = await select(completed, 'counter');
    const checkoutPayment = String((selected.json['payment'] as Record<string, unknown>)['id']);
    await simulate('a', checkoutPayment, 'succeeded');
    await waitFor('a', `/checkout/${completed.id}`, (c) => c['status'] === 'completed');
    const expiredCheckout = await checkout();
    await call('a', 'POST', `/checkout/${expiredCheckout.id}/expire`);

    // Let the notifications, refunds and webhook deliveries (and some retries) happen.
    // (The default late-payment policy keeps them closed and records a refund to make.)
    await waitFor('a', `/payment/${lateBank}`, (p) => p['late_payment'] != null);
    await waitFor('a', `/payment/${lateCounter}`, (p) => p['late_payment'] != null);
    await pause(5_000);

    // What the previous release answers, for the test to compare with.
    const listAll = async (who: 'a' | 'b', path: string) => {
      const out: Record<string, unknown>[] = [];
      let after: string | undefined;
      for (let page = 0; page < 50; page += 1) {
        const got = await call(who, 'GET', `${path}?limit=100${after === undefined ? '' : `&starting_after=${after}`}`);
        const data = got.json['data'] as Record<string, unknown>[];
        out.push(...data);
        if (got.json['has_more'] !== true) return out;
        after = String(data.at(-1)?.['id']);
      }
      throw new Error(`${path}: too many pages`);
    };
    const answers: Record<string, Record<string, unknown>> = {};
    for (const who of ['a', 'b'] as const) {
      for (const p of await listAll(who, '/payment')) {
        answers[String(p['id'])] = (await call(who, 'GET', `/payment/${String(p['id'])}`)).json;
      }
    }
    const checkouts: Record<string, Record<string, unknown>> = {};
    for (const c of await listAll('a', '/checkout')) {
      checkouts[String(c['id'])] = (await call('a', 'GET', `/checkout/${String(c['id'])}`)).json;
    }
    const events = {
      a: (await listAll('a', '/event')).map((e) => String(e['id'])),
      b: (await listAll('b', '/event')).map((e) => String(e['id'])),
    };
    const balance = (await call('a', 'GET', '/balance?verify=true')).json;

    server.kill('SIGTERM');
    await new Promise((r) => server?.once('exit', r));
    server = undefined;

    const counts = await rowCounts();
    const dump = execFileSync(
      'pg_dump',
      ['--dbname', PG_URL, '--schema', schema, '--column-inserts', '--no-owner', '--no-privileges', '--no-comments'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    const highest = (
      await queryRows<{ name: string }>(`SELECT name FROM ${schema}.schema_migrations ORDER BY version DESC LIMIT 1`)
    )[0]?.name;
    const generatedAt = new Date().toISOString();
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, `release-${commit}.sql`), header(commit, highest ?? '?', generatedAt, counts) + portable(dump));
    const manifest = {
      release: commit,
      generated_at: generatedAt,
      highest_migration: highest,
      deployment_secret: DEPLOYMENT_SECRET,
      public_base_url: PUBLIC_BASE_URL,
      merchants: { a: { id: a.id, sandbox_key: keys.a }, b: { id: b.id, sandbox_key: keys.b } },
      idempotent_requests: recorded,
      payments: answers,
      checkouts,
      events,
      balance_a: balance,
      row_counts: counts,
    };
    writeFileSync(join(outDir, `release-${commit}.json`), `${JSON.stringify(manifest, null, 2)}\n`);
    console.log(`wrote release-${commit}.sql and .json (highest migration ${highest ?? '?'})`);
    console.log(counts);
  } finally {
    if (server !== undefined) {
      server.kill('SIGTERM');
      await new Promise((r) => server?.once('exit', r));
    }
    receiver.server.close();
    await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  }
}

async function queryRows<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

async function rowCounts(): Promise<Record<string, number>> {
  const tables = await queryRows<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const t of tables) {
    const [row] = await queryRows<{ n: string }>(`SELECT count(*) AS n FROM ${schema}."${t.table_name}"`);
    counts[t.table_name] = Number(row?.n ?? 0);
  }
  return counts;
}

/**
 * pg_dump's plain SQL made loadable into any schema (the loader's search_path) and into PGlite:
 * no psql meta-commands (\restrict), no session settings but check_function_bodies (a SQL function
 * may name a table dumped after it), no CREATE SCHEMA, no schema qualification, no comments.
 */
function portable(dump: string): string {
  const lines = dump
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .filter((line) => !line.startsWith('--'))
    .filter((line) => !/^SET /.test(line) && !/^SELECT pg_catalog\.set_config/.test(line))
    .filter((line) => !line.startsWith(`CREATE SCHEMA ${schema}`));
  const body = lines
    .join('\n')
    .split(`${schema}.`)
    .join('')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (body.includes(schema)) throw new Error(`the dump still names ${schema}`);
  return `SET check_function_bodies = false;\n\n${body}\n\nRESET check_function_bodies;\n`;
}

function header(release: string, highest: string, generatedAt: string, counts: Record<string, number>): string {
  const rows = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  return `-- Upgrade fixture: the schema and data of Tributary release ${release} (migrations up to ${highest}).
-- Made by scripts/make-upgrade-fixture.ts on ${generatedAt}: the release's own server (npm start's
-- src/main.ts) on a fresh PostgreSQL 15 schema, a history created through its API, then
-- pg_dump --schema --column-inserts --no-owner --no-privileges --no-comments, with psql
-- meta-commands, session settings, CREATE SCHEMA and the schema name removed so that it loads into
-- the caller's search_path on PostgreSQL and into PGlite. Regenerate it, never edit it by hand:
-- test/fixtures/upgrade/README.md. Used by test/integration/upgrade-from-previous-release.test.ts.
-- Rows: ${rows}.

`;
}

await main();
