import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { openPostgresStore } from '../../src/db/postgres-store.ts';
import { spawn } from 'node:child_process';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { runCli, type ServerProcess, startServer, tempDataDir } from '../harness/server-process.ts';
import { freePort } from '../reliability/harness/databases.ts';
import { contractFetch } from '../harness/checked-fetch.ts';
import { createPostgresSchema, dropPostgresSchema, postgresUrlWithSchema, TEST_STORE } from '../harness/test-store.ts';

/**
 * The recovery point of docs/idempotency.md, with a real process and a real kill -9: the server
 * dies after the provider answered but before it answered the client. A retry with the same key
 * on a new process finishes the SAME payment (same id, one row) instead of making another.
 */
/** The store the test's server processes used (after they stopped). */
const openStoreOf = (env: Record<string, string>) =>
  TEST_STORE === 'postgres'
    ? openPostgresStore({
        connectionString: env['DATABASE_URL'] as string,
        poolSize: 1,
        connectTimeoutMs: 5_000,
        statementTimeoutMs: 5_000,
      })
    : openEmbeddedStore({ dataDir: env['DATA_DIR'] as string, owner: 'test' });

describe(`crash after the provider answered, before the response (${TEST_STORE})`, () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('a retry with the same Idempotency-Key finishes the same payment', async () => {
    let env: Record<string, string>;
    let schema: string | undefined;
    if (TEST_STORE === 'postgres') {
      schema = await createPostgresSchema();
      const s = schema;
      cleanups.push(() => dropPostgresSchema(s));
      // A short lease: on PostgreSQL a dead process's lease must expire before a retry takes over.
      env = { DATABASE_URL: postgresUrlWithSchema(schema), IDEMPOTENCY_LEASE_MS: '1500' };
    } else {
      env = { DATA_DIR: tempDataDir() };
    }
    const created = runCli(['merchants', 'create', '--name', 'Crash test', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const key = (JSON.parse(created.stdout) as { api_keys: { sandbox: string } }).api_keys.sandbox;

    const body = JSON.stringify({ amount: 150000.0, currency: 'IDR', reference_no: 'crash-1', email: 'payer@example.com' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'crash-key-1' };

    const doomed: ServerProcess = await startServer({
      ...env,
      TRIBUTARY_FAILPOINTS: 'create.after_connector=kill',
      RUN_JOBS: 'false',
    });
    cleanups.push(async () => void (await doomed.kill()));
    const first = await contractFetch(`${doomed.url}/payment/create`, { method: 'POST', headers, body }).then(
      () => 'answered',
      () => 'connection lost',
    );
    assert.equal(first, 'connection lost', 'the client never got an answer');
    assert.equal(await doomed.exited, null, 'killed by SIGKILL');

    const survivor = await startServer({ ...env, RUN_JOBS: 'false' });
    cleanups.push(async () => void (await survivor.kill('SIGTERM')));
    // Bounded retry loop honouring Retry-After (PostgreSQL: until the dead process's lease expires).
    let res: Response | undefined;
    for (let i = 0; i < 20; i += 1) {
      res = await contractFetch(`${survivor.url}/payment/create`, { method: 'POST', headers, body });
      if (res.status !== 409) break;
      await new Promise((r) => setTimeout(r, Number(res?.headers.get('retry-after') ?? '1') * 1000));
    }
    assert.ok(res);
    const text = await res.text();
    assert.equal(res.status, 201, text);
    const payment = JSON.parse(text) as { id: string; status: string; instructions: { account_number: string } };
    assert.equal(payment.status, 'pending');
    await survivor.kill('SIGTERM');

    // Exactly one payment for this reference, and it is the one the crashed request started.
    const store = await openStoreOf(env);
    try {
      const payments = await store.query<{ id: string }>("SELECT id FROM payments WHERE reference_no = 'crash-1'");
      assert.deepEqual(
        payments.map((p) => p.id),
        [payment.id],
      );
      const attempts = await store.query<{ status: string }>('SELECT status FROM payment_attempts WHERE payment_id = $1', [
        payment.id,
      ]);
      assert.deepEqual(
        attempts.map((a) => a.status),
        ['issued'],
        'the same attempt was re-sent, not a new one',
      );
    } finally {
      await store.close();
    }
  });

  it('refund: a retry with the same Idempotency-Key after a kill -9 past the provider call finishes the same refund', async () => {
    let env: Record<string, string>;
    if (TEST_STORE === 'postgres') {
      const schema = await createPostgresSchema();
      cleanups.push(() => dropPostgresSchema(schema));
      env = { DATABASE_URL: postgresUrlWithSchema(schema), IDEMPOTENCY_LEASE_MS: '1500' };
    } else {
      env = { DATA_DIR: tempDataDir() };
    }
    // The providers run as their own process here, so that they (and the charge) outlive the
    // Tributary process that is killed, as a real provider does.
    const [apiPort, providersPort] = [await freePort(), await freePort()];
    const providerSecret = 'refund-crash-provider-secret-0123456789';
    const providers = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/providers-main.ts'], {
      env: {
        ...process.env,
        SANDBOX_PROVIDER_SECRET: providerSecret,
        SANDBOX_PROVIDERS_PORT: String(providersPort),
        TRIBUTARY_URL: `http://127.0.0.1:${apiPort}`,
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => void providers.kill('SIGKILL'));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('sandbox providers did not start')), 60_000);
      providers.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    Object.assign(env, {
      PORT: String(apiPort),
      SANDBOX_PROVIDER_URL: `http://127.0.0.1:${providersPort}`,
      SANDBOX_PROVIDER_SECRET: providerSecret,
      RUN_JOBS: 'false',
    });
    const created = runCli(['merchants', 'create', '--name', 'Refund crash test', '--json'], env);
    assert.equal(created.status, 0, created.stderr);
    const key = (JSON.parse(created.stdout) as { api_keys: { sandbox: string } }).api_keys.sandbox;
    const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    /** Bounded wait for what a real process does on its own (notifications arrive and are processed). */
    const until = async (url: string, path: string, want: string) => {
      for (let i = 0; i < 200; i += 1) {
        const body = (await (await contractFetch(`${url}${path}`, { headers: auth })).json()) as { status: string };
        if (body.status === want) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.fail(`${path} never became ${want}`);
    };

    const first = await startServer(env);
    cleanups.push(async () => void (await first.kill()));
    const payment = (await (
      await contractFetch(`${first.url}/payment/create`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ amount: 150000.0, currency: 'IDR', reference_no: 'refund-crash-1', channel: 'bank' }),
      })
    ).json()) as { id: string };
    await contractFetch(`${first.url}/sandbox/payment/${payment.id}/simulate`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ outcome: 'succeeded' }),
    });
    await until(first.url, `/payment/${payment.id}`, 'succeeded');
    await first.kill('SIGTERM');

    const refundHeaders = { ...auth, 'idempotency-key': 'refund-crash-key' };
    const refundBody = JSON.stringify({ amount: 50000 });
    const doomed = await startServer({ ...env, TRIBUTARY_FAILPOINTS: 'refund.after_connector=kill' });
    cleanups.push(async () => void (await doomed.kill()));
    const lost = await contractFetch(`${doomed.url}/payment/${payment.id}/refund`, {
      method: 'POST',
      headers: refundHeaders,
      body: refundBody,
    }).then(
      () => 'answered',
      () => 'connection lost',
    );
    assert.equal(lost, 'connection lost');
    assert.equal(await doomed.exited, null, 'killed by SIGKILL');

    const survivor = await startServer(env);
    cleanups.push(async () => void (await survivor.kill('SIGTERM')));
    let res: Response | undefined;
    for (let i = 0; i < 20; i += 1) {
      res = await contractFetch(`${survivor.url}/payment/${payment.id}/refund`, {
        method: 'POST',
        headers: refundHeaders,
        body: refundBody,
      });
      if (res.status !== 409) break;
      await new Promise((r) => setTimeout(r, Number(res?.headers.get('retry-after') ?? '1') * 1000));
    }
    assert.ok(res);
    const text = await res.text();
    assert.equal(res.status, 201, text);
    const refund = JSON.parse(text) as { id: string; amount: number };
    assert.equal(refund.amount, 50000);
    await until(survivor.url, `/refund/${refund.id}`, 'succeeded');
    await survivor.kill('SIGTERM');

    const store = await openStoreOf(env);
    try {
      const refunds = await store.query<{ id: string }>('SELECT id FROM refunds WHERE payment_id = $1', [payment.id]);
      assert.deepEqual(
        refunds.map((r) => r.id),
        [refund.id],
        'the crashed request made the refund; the retry finished it and made no other',
      );
      const paid = await store.query<{ amount_refunded_minor: bigint }>(
        'SELECT amount_refunded_minor FROM payments WHERE id = $1',
        [payment.id],
      );
      assert.equal(paid[0]?.amount_refunded_minor, 5_000_000n);
      assert.deepEqual(await verifyLedger(store), []);
    } finally {
      await store.close();
    }
  });
});
