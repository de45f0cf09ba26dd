import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';
import { openEmbeddedStore } from '../../src/db/pglite-store.ts';
import { recordException } from '../../src/modules/settlement/settlement-exception-repo.ts';
import { runCli, type ServerProcess, startServer, tempDataDir } from '../harness/server-process.ts';
import { contractFetch } from '../harness/checked-fetch.ts';
import { createPostgresSchema, dropPostgresSchema, postgresUrlWithSchema, TEST_STORE } from '../harness/test-store.ts';

// These tests start their own processes on both kinds of store; they run once, in the embedded pass.
const once = { skip: TEST_STORE === 'postgres' ? 'runs in the embedded pass' : false };

const running: ServerProcess[] = [];
after(async () => {
  for (const s of running) await s.kill();
});

describe('CLI', once, () => {
  it('merchants create --json prints the published shape, and the keys work', async () => {
    const dataDir = tempDataDir();
    const result = runCli(['merchants', 'create', '--name', 'CLI shop', '--json'], { DATA_DIR: dataDir });
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout) as { id: string; api_keys: { sandbox: string; production: string } };
    assert.deepEqual(Object.keys(out).sort(), ['api_keys', 'id']);
    assert.match(out.id, /^mer_[0-9A-Z]{26}$/);
    assert.match(out.api_keys.sandbox, /^sk_test_[0-9A-Za-z]{32}$/);
    assert.match(out.api_keys.production, /^sk_live_[0-9A-Za-z]{32}$/);

    const list = runCli(['keys', 'list', '--merchant', out.id, '--json'], { DATA_DIR: dataDir });
    const keys = JSON.parse(list.stdout) as { id: string; environment: string; prefix: string }[];
    assert.equal(keys.length, 2);
    assert.ok(
      keys.every((k) => !list.stdout.includes(out.api_keys.sandbox) && k.prefix.endsWith('…')),
      'secrets are never listed',
    );

    const created = JSON.parse(
      runCli(['keys', 'create', '--merchant', out.id, '--environment', 'sandbox', '--json'], { DATA_DIR: dataDir }).stdout,
    ) as { id: string; api_key: string };
    const revoked = runCli(['keys', 'revoke', created.id, '--json'], { DATA_DIR: dataDir });
    assert.equal(revoked.status, 0, revoked.stderr);
    // The operator's key changes are in the audit log, newest first, by the operator, without a secret.
    const audit = runCli(['audit', '--merchant', out.id, '--json'], { DATA_DIR: dataDir });
    assert.equal(audit.status, 0, audit.stderr);
    const entries = (JSON.parse(audit.stdout) as { data: { action: string; actor: { type: string; label: string } }[] }).data;
    assert.deepEqual(
      entries.map((e) => e.action),
      ['api_key.revoked', 'api_key.created', 'api_key.created', 'api_key.created'],
    );
    assert.ok(entries.every((e) => e.actor.type === 'operator' && e.actor.label === 'cli'));
    for (const secret of [out.api_keys.sandbox, out.api_keys.production, created.api_key])
      assert.ok(!audit.stdout.includes(secret));

    const server = await startServer({ DATA_DIR: dataDir });
    running.push(server);
    const ok = await contractFetch(`${server.url}/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY`, {
      headers: { authorization: `Bearer ${out.api_keys.sandbox}` },
    });
    assert.equal(ok.status, 404, 'a valid key reaches the route');
    const refused = await contractFetch(`${server.url}/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY`, {
      headers: { authorization: `Bearer ${created.api_key}` },
    });
    assert.equal(refused.status, 401, 'a revoked key is refused');

    // While the server holds the embedded store, a command it does not run for the CLI (migrate)
    // is refused clearly instead of corrupting the store.
    const blocked = runCli(['migrate'], { DATA_DIR: dataDir });
    assert.equal(blocked.status, 2);
    assert.match(blocked.stderr, /in use by another Tributary process \(pid \d+, server\)/);
    await server.kill('SIGTERM');
  });

  it('merchants and keys commands work while an embedded server runs: the server runs them over its owner-only socket', async () => {
    const dataDir = tempDataDir();
    const server = await startServer({ DATA_DIR: dataDir });
    running.push(server);
    const socket = statSync(join(dataDir, 'admin.sock'));
    assert.ok(socket.isSocket());
    assert.equal(socket.mode & 0o777, 0o600, 'only the owner may connect');
    const cli = (args: string[]) => {
      const result = runCli([...args, '--json'], { DATA_DIR: dataDir });
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const get = (key: unknown) =>
      fetch(`${server.url}/payment/pay_01M802HR5XTTXZAF0MA4G1EYJY`, { headers: { authorization: `Bearer ${String(key)}` } });

    const merchant = cli(['merchants', 'create', '--name', 'Shop beside a server']) as {
      id: string;
      api_keys: { sandbox: string; production: string };
    };
    assert.match(merchant.id, /^mer_/);
    assert.equal((await get(merchant.api_keys.sandbox)).status, 404, 'the new key works on the running server at once');
    const listed = runCli(['merchants', 'list', '--json'], { DATA_DIR: dataDir });
    assert.ok(
      (JSON.parse(listed.stdout) as { id: string }[]).some((m) => m.id === merchant.id),
      listed.stderr,
    );

    const created = cli(['keys', 'create', '--merchant', merchant.id, '--environment', 'sandbox']) as {
      id: string;
      api_key: string;
    };
    assert.equal((await get(created.api_key)).status, 404);
    const rolled = cli(['keys', 'roll', created.id, '--overlap-hours', '0']) as { id: string; api_key: string };
    assert.notEqual(rolled.id, created.id);
    assert.equal((await get(rolled.api_key)).status, 404);
    const revoked = cli(['keys', 'revoke', rolled.id]);
    assert.deepEqual(revoked, { id: rolled.id, revoked: true });
    const keys = cli(['keys', 'list', '--merchant', merchant.id]) as unknown as { id: string; revoked_at: string | null }[];
    assert.equal(keys.length, 4);
    assert.ok(keys.find((k) => k.id === rolled.id)?.revoked_at !== null);

    // The server's refusals come back as the CLI's own: exit code 2, nothing changed.
    const unknown = runCli(['keys', 'create', '--merchant', 'mer_00000000000000000000000000', '--environment', 'sandbox'], {
      DATA_DIR: dataDir,
    });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /no merchant mer_0{26}/);
    const badEnvironment = runCli(['keys', 'create', '--merchant', merchant.id, '--environment', 'staging'], {
      DATA_DIR: dataDir,
    });
    assert.equal(badEnvironment.status, 2);
    assert.match(badEnvironment.stderr, /--environment must be sandbox or production/);
    assert.equal((cli(['keys', 'list', '--merchant', merchant.id]) as unknown as unknown[]).length, 4);
    // `audit` too is run by the server: created ×3 (two with the merchant), rolled, revoked.
    const audit = cli(['audit', '--merchant', merchant.id, '--action', 'api_key.created']) as { data: { action: string }[] };
    assert.equal(audit.data.length, 3);
    assert.equal((cli(['audit', '--merchant', merchant.id, '--limit', '2']) as { data: unknown[] }).data.length, 2);
    assert.equal(await server.kill('SIGTERM'), 0);
  });

  it('settlement exceptions: operators list every one (also unattributed) and resolve one once', async () => {
    const dataDir = tempDataDir();
    const created = runCli(['merchants', 'create', '--name', 'Exceptions shop', '--json'], { DATA_DIR: dataDir });
    assert.equal(created.status, 0, created.stderr);
    const merchantId = (JSON.parse(created.stdout) as { id: string }).id;
    const store = await openEmbeddedStore({ dataDir, owner: 'test' });
    const now = new Date();
    const base = {
      connector: 'sandbox_bank',
      attemptId: 'att_x',
      settledAt: now,
      grossMinor: 15_000_100n,
      feeMinor: 400_000n,
      currency: 'IDR',
      now,
    };
    try {
      await recordException(store, {
        ...base,
        providerReference: 'sbva_1',
        kind: 'amount_mismatch',
        merchantId,
        environment: 'sandbox',
        paymentId: 'pay_01M802HR5XTTXZAF0MA4G1EYJY',
        detail: 'the payer paid 15000000 minor units',
      });
      await recordException(store, {
        ...base,
        providerReference: 'sbva_2',
        kind: 'unknown_reference',
        merchantId: null,
        environment: null,
        paymentId: null,
        detail: 'no attempt of this connector has this id',
      });
    } finally {
      await store.close();
    }
    const listed = (args: string[]) => {
      const r = runCli(['settlement', 'exceptions', ...args, '--json'], { DATA_DIR: dataDir });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout) as { id: string; kind: string; status: string; merchant_id: string | null; gross: number }[];
    };
    const all = listed([]);
    assert.deepEqual(all.map((e) => e.kind).sort(), ['amount_mismatch', 'unknown_reference']);
    assert.deepEqual(
      listed(['--merchant', merchantId]).map((e) => e.kind),
      ['amount_mismatch'],
    );
    const target = all.find((e) => e.kind === 'amount_mismatch');
    assert.ok(target !== undefined);
    assert.equal(target.gross, 150001);

    const human = runCli(['settlement', 'exceptions'], { DATA_DIR: dataDir });
    assert.match(human.stdout, /OPEN {2}sandbox_bank {2}unknown_reference {2}unattributed/);

    const resolved = runCli(['settlement', 'resolve', target.id, '--note', 'provider re-sent the line', '--json'], {
      DATA_DIR: dataDir,
    });
    assert.equal(resolved.status, 0, resolved.stderr);
    assert.equal((JSON.parse(resolved.stdout) as { status: string; resolution: string }).resolution, 'provider re-sent the line');
    assert.deepEqual(
      listed(['--status', 'resolved']).map((e) => e.id),
      [target.id],
    );

    const again = runCli(['settlement', 'resolve', target.id, '--note', 'again'], { DATA_DIR: dataDir });
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already resolved at .*: provider re-sent the line/);
    for (const bad of [
      ['settlement', 'resolve', target.id],
      ['settlement', 'resolve', 'stx_00000000000000000000000000', '--note', 'x'],
      ['settlement', 'exceptions', '--status', 'closed'],
    ]) {
      const r = runCli(bad, { DATA_DIR: dataDir });
      assert.equal(r.status, 2, bad.join(' '));
      assert.match(r.stderr, /^tributary: /);
    }
  });

  it('refuses bad usage with exit code 2 and a message', () => {
    const dataDir = tempDataDir();
    for (const args of [
      ['merchants', 'create'],
      ['keys', 'create', '--merchant', 'mer_x', '--environment', 'staging'],
      ['audit', '--limit', '0'],
      ['audit', '--action', 'nope'],
      ['frobnicate'],
    ]) {
      const result = runCli(args, { DATA_DIR: dataDir });
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^tributary: /);
    }
  });

  it('on PostgreSQL works while a server runs', async () => {
    const schema = await createPostgresSchema();
    try {
      const env = { DATABASE_URL: postgresUrlWithSchema(schema) };
      const server = await startServer(env);
      running.push(server);
      const result = runCli(['merchants', 'create', '--name', 'PG shop', '--json'], env);
      assert.equal(result.status, 0, result.stderr);
      const key = (JSON.parse(result.stdout) as { api_keys: { sandbox: string } }).api_keys.sandbox;
      const res = await contractFetch(`${server.url}/payment/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 150000.0, currency: 'IDR', reference_no: 'pg-cli-1', email: 'payer@example.com' }),
      });
      assert.equal(res.status, 201, await res.text());
      // It never prints keys on PostgreSQL.
      assert.doesNotMatch(server.output(), /sk_(test|live)_/);
      assert.doesNotMatch(server.output(), /does not flush commits/, 'a durable server is not warned about');
      await server.kill('SIGTERM');
    } finally {
      await dropPostgresSchema(schema);
    }
  });

  it('warns at start when PostgreSQL acknowledges commits it has not flushed', async () => {
    const schema = await createPostgresSchema();
    try {
      const url = new URL(postgresUrlWithSchema(schema));
      url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c synchronous_commit=off`);
      const server = await startServer({ DATABASE_URL: url.toString() });
      running.push(server);
      assert.match(server.output(), /"setting":"synchronous_commit","value":"off".*does not flush commits to disk/);
      await server.kill('SIGTERM');
    } finally {
      await dropPostgresSchema(schema);
    }
  });
});

describe('embedded data directory lock', once, () => {
  it('a second process gets a clear error, a stale lock of a dead process is taken over', async () => {
    const dataDir = tempDataDir();
    const server = await startServer({ DATA_DIR: dataDir });
    running.push(server);
    const second = await startServer({ DATA_DIR: dataDir }).then(
      () => 'started',
      (e: Error) => e.message,
    );
    assert.match(second, /in use by another Tributary process/);
    await server.kill('SIGKILL'); // leaves its lock file behind
    const lock = await lockDataDir(dataDir, 'test'); // the kernel released it with the process
    lock.release();
    writeFileSync(join(dataDir, 'tributary.lock'), 'garbage');
    const again = await lockDataDir(dataDir, 'test'); // a file nobody holds is free, whatever it says
    again.release();
  });
});

describe('first start', once, () => {
  it('on an empty embedded store prints where it listens and a key, once', async () => {
    const dataDir = tempDataDir();
    const first = await startServer({ DATA_DIR: dataDir });
    running.push(first);
    const out = first.output();
    assert.match(out, /listening on http:\/\/127\.0\.0\.1:\d+/);
    const key = /sandbox +(sk_test_[0-9A-Za-z]{32})/.exec(out)?.[1];
    assert.ok(key, out);
    const res = await contractFetch(`${first.url}/payment/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 150000.0, currency: 'IDR', reference_no: 'first-1', email: 'payer@example.com' }),
    });
    assert.equal(res.status, 201);
    assert.equal(await first.kill('SIGTERM'), 0, 'graceful exit');
    const second = await startServer({ DATA_DIR: dataDir });
    running.push(second);
    assert.doesNotMatch(second.output(), /sk_(test|live)_/, 'keys are shown only on the first start');
    assert.match(second.output(), /npx tributary merchants create/);
    await second.kill('SIGTERM');
  });
});
