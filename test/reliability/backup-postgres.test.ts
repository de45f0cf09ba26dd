import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { waitReady } from './harness/api-client.ts';
import { acknowledgedSoFar, checkReplays, checkRestoredStore, startPayer } from './harness/backup-checks.ts';
import { startCreateLoad, withStoreQuery } from './harness/create-load.ts';
import { adminQuery, databaseUrl, freePort } from './harness/databases.ts';
import {
  createMerchant,
  killIfRunning,
  newSecret,
  type ServerProcess,
  sleep,
  startServer,
  type StoreTarget,
  tempDir,
} from './harness/processes.ts';

/**
 * PostgreSQL: continuous WAL archiving with pgBackRest and point-in-time recovery to a named time
 * (docs/backups.md), on a throwaway cluster of this test's own (initdb in a temp directory, a
 * loopback port; the machine's main cluster is not touched). A full backup, create load (and a
 * payer), a recovery time T noted mid-load, more load; then `pgbackrest restore --type=time
 * --target=T` into a fresh data directory, started on another port. Every payment acknowledged
 * before T is there with its key, events and ledger entries, the ledger balances, replaying its key
 * returns the same bytes, and no payment first requested after T is there.
 */
const run = promisify(execFile);
const has = (cmd: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const skip = has('pgbackrest') ? false : 'pgbackrest is not installed (apt-get install -y pgbackrest; .ci/run installs it)';

function binDir(): string {
  for (const version of [17, 16, 15, 14]) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return '';
}

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('PostgreSQL: WAL archiving and point-in-time recovery with pgBackRest', { skip }, () => {
  it('restores to a time T mid-load with every payment acknowledged before T', async () => {
    const dir = tempDir('pgbackrest');
    cleanups.push(() => dir.remove());
    const asRoot = process.getuid?.() === 0;
    const bin = binDir();
    const tool = (name: string) => (bin === '' ? name : join(bin, name));
    /** As the `postgres` OS user when we are root (PostgreSQL and pgBackRest refuse root). */
    const pg = async (file: string, args: string[], timeoutMs = 120_000) => {
      const [f, a] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
      return run(f, a, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 });
    };
    const owner = asRoot
      ? {
          uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
          gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
        }
      : undefined;
    const own = (path: string) => owner !== undefined && chownSync(path, owner.uid, owner.gid);
    own(dir.path);

    const data = join(dir.path, 'data');
    const restoredData = join(dir.path, 'restored');
    const conf = join(dir.path, 'pgbackrest.conf');
    const port = await freePort();
    for (const sub of ['repo', 'log', 'lock', 'spool']) {
      mkdirSync(join(dir.path, sub));
      own(join(dir.path, sub));
    }
    // The single-server recipe of docs/backups.md, with paths in the temp directory.
    writeFileSync(
      conf,
      [
        '[global]',
        `repo1-path=${join(dir.path, 'repo')}`,
        'repo1-retention-full=2',
        `log-path=${join(dir.path, 'log')}`,
        `lock-path=${join(dir.path, 'lock')}`,
        `spool-path=${join(dir.path, 'spool')}`,
        'log-level-console=warn',
        'log-level-file=info',
        'start-fast=y',
        '',
        '[tributary]',
        `pg1-path=${data}`,
        `pg1-port=${port}`,
        `pg1-socket-path=${dir.path}`,
        'pg1-user=postgres',
        '',
      ].join('\n'),
      { mode: 0o644 },
    );
    const backrest = (args: string[]) => pg('pgbackrest', [`--config=${conf}`, '--stanza=tributary', ...args]);

    await pg(tool('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    appendFileSync(
      join(data, 'postgresql.conf'),
      [
        '',
        '# docs/backups.md: continuous archiving to pgBackRest',
        'wal_level = replica',
        'archive_mode = on',
        `archive_command = 'pgbackrest --config=${conf} --stanza=tributary archive-push %p'`,
        'archive_timeout = 60',
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${dir.path}'`,
        'max_connections = 100',
        '',
      ].join('\n'),
    );
    const ctl = (dataDir: string, args: string[]) =>
      pg(tool('pg_ctl'), ['-D', dataDir, '-l', `${dataDir}.log`, '-w', '-t', '60', ...args], 90_000);
    await ctl(data, ['start']);
    cleanups.push(() =>
      ctl(data, ['-m', 'immediate', 'stop']).then(
        () => undefined,
        () => undefined,
      ),
    );
    const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await adminQuery(admin, 'CREATE DATABASE tributary');
    const source: StoreTarget = { kind: 'postgres', url: databaseUrl(admin, 'tributary') };

    await backrest(['stanza-create']);
    await backrest(['check']); // archive_command works: a WAL segment reached the repository
    const secret = newSecret();
    const merchant = await createMerchant(source, secret, 'PITR');
    const full = Date.now();
    await backrest(['backup', '--type=full']);
    console.log(`# pgbackrest full backup: ${Date.now() - full} ms`);

    let server: ServerProcess | undefined = await startServer({ target: source, secret });
    cleanups.push(() => killIfRunning(server));
    const url = server.url;
    const load = startCreateLoad({ tag: 'bkp', baseUrl: () => url, apiKey: merchant.sandboxKey, workers: 4, staggerMs: 30 });
    const payer = startPayer({ baseUrl: () => url, apiKey: merchant.sandboxKey, ledger: load.ledger, everyMs: 100 });
    let before: ReturnType<typeof acknowledgedSoFar>;
    let knownAtT: Set<string>;
    let target: string;
    try {
      for (let waited = 0; load.ledger.acked.size < 150 && waited < 60_000; waited += 100) await sleep(100);
      // T: every 201 received so far was committed before T (its commit preceded its answer).
      before = acknowledgedSoFar(load.ledger);
      const [row] = (
        await adminQuery(admin, `SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS t`)
      ).rows as { t: string }[];
      target = (row as { t: string }).t;
      // Keys sent by now include every key sent before T: a key not among them was first sent after
      // T, so its payment was committed after T and must not be restored.
      knownAtT = new Set([...load.ledger.acked.keys(), ...load.ledger.pending]);
      for (let waited = 0; load.ledger.acked.size < before.ids.size + 100 && waited < 60_000; waited += 100) await sleep(100);
    } finally {
      await payer.stop();
      await load.stop();
    }
    const afterT = [...load.ledger.acked].filter(([key]) => !knownAtT.has(key));
    console.log(
      `# T = ${target}; ${before.ids.size} acknowledged before T, ${afterT.length} first sent after it; ${load.ledger.summary()}`,
    );
    assert.deepEqual(load.ledger.violations, []);
    assert.ok(afterT.length > 0, 'load went on after T');
    assert.equal((await server.terminate()).code, 0);
    server = undefined;

    // The WAL past T must be in the repository: switch segments and wait for the archiver.
    await adminQuery(admin, 'SELECT pg_switch_wal()');
    await backrest(['check']);

    mkdirSync(restoredData, { mode: 0o700 });
    own(restoredData);
    const restoreStarted = Date.now();
    await backrest([`--pg1-path=${restoredData}`, 'restore', '--type=time', `--target=${target}`, '--target-action=promote']);
    // The restored copy must not archive into the source's stanza: it is a new history.
    const restoredPort = await freePort();
    appendFileSync(join(restoredData, 'postgresql.conf'), `\narchive_mode = off\nport = ${restoredPort}\n`);
    await ctl(restoredData, ['start']);
    cleanups.push(() =>
      ctl(restoredData, ['-m', 'immediate', 'stop']).then(
        () => undefined,
        () => undefined,
      ),
    );
    const restoredAdmin = `postgres://postgres@127.0.0.1:${restoredPort}/postgres`;
    for (let waited = 0; waited < 60_000; waited += 200) {
      const [r] = (await adminQuery(restoredAdmin, 'SELECT pg_is_in_recovery() AS rec')).rows as { rec: boolean }[];
      if (r?.rec === false) break;
      await sleep(200);
    }
    console.log(`# pgbackrest restore to T and recovery: ${Date.now() - restoreStarted} ms`);
    const restored: StoreTarget = { kind: 'postgres', url: databaseUrl(restoredAdmin, 'tributary') };

    const { problems, counts } = await withStoreQuery(source, (sourceQuery) =>
      withStoreQuery(restored, async (restoredQuery) => {
        const result = await checkRestoredStore(sourceQuery, restoredQuery, before.ids);
        const late = await restoredQuery('SELECT id FROM payments WHERE id = ANY($1)', [afterT.map(([, id]) => id)]);
        for (const r of late) result.problems.push(`payment ${String(r['id'])} was first requested after T but is restored`);
        return result;
      }),
    );
    console.log(`# restored to T: ${JSON.stringify(counts)} for ${before.ids.size} payments acknowledged before T`);
    assert.deepEqual(problems.slice(0, 20), []);
    assert.equal(counts.payments, before.ids.size);
    assert.ok(counts.succeeded > 0 && counts.postings > 0, 'some were paid, with ledger entries, before T');

    const again = await startServer({ target: restored, secret });
    cleanups.push(() => killIfRunning(again));
    await waitReady(again.url);
    const replayProblems = await checkReplays(again.url, merchant.sandboxKey, before.bodies);
    console.log(`# replayed ${before.bodies.size} keys on a server over the restored cluster`);
    assert.deepEqual(replayProblems.slice(0, 20), []);
    assert.equal((await again.terminate()).code, 0);
  });
});
