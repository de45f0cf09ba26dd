import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './databases.ts';
import { REPO_ROOT } from './processes.ts';

const run = promisify(execFile);

/**
 * The pieces of the scale-out and high-availability scenarios (docs/scaling.md): pgbouncer in
 * transaction pooling mode, and the Patroni + etcd + HAProxy cluster of `scripts/ha/ha-cluster.sh`.
 * All of it from Debian packages, on loopback, in temporary directories; every wait is bounded.
 */

/** The first of `commands` that is not on PATH, or undefined when all are (for skip messages). */
export async function missingCommand(...commands: string[]): Promise<string | undefined> {
  for (const command of commands) {
    try {
      await run('sh', ['-c', `command -v ${command}`]);
    } catch {
      return command;
    }
  }
  return undefined;
}

export const asRoot = process.getuid?.() === 0;

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

export interface Pgbouncer {
  port: number;
  /** The URL of `database` through pgbouncer. */
  url(database: string): string;
  /** `SHOW POOLS` of the admin console, for `database`. */
  pools(database: string): Promise<{ clActive: number; clWaiting: number; svActive: number; svIdle: number; svUsed: number }>;
  log(): string;
  close(): Promise<void>;
}

/**
 * pgbouncer in transaction pooling mode in front of 127.0.0.1:`upstreamPort`, run as `postgres`
 * (pgbouncer refuses root). `poolSize` server connections per database/user pair at most: with
 * more clients than that, clients share server sessions transaction by transaction.
 */
export async function startPgbouncer(upstreamPort: number, poolSize: number): Promise<Pgbouncer> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-pgbouncer-'));
  const port = await freePort();
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${upstreamPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'admin_users = postgres',
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${poolSize}`,
      'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout',
      'server_reset_query =',
      'query_wait_timeout = 5',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
    for (const f of ['userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, f), uid, gid);
  }
  const [file, args] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', 'pgbouncer', join(dir, 'pgbouncer.ini')]]
    : ['pgbouncer', [join(dir, 'pgbouncer.ini')]];
  const child: ChildProcess = spawn(file, args, { stdio: 'ignore' });
  const logText = () => (existsSync(join(dir, 'pgbouncer.log')) ? readFileSync(join(dir, 'pgbouncer.log'), 'utf8') : '');
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/pgbouncer`;
  for (let waited = 0; ; waited += 100) {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (waited > 10_000 || child.exitCode !== null) {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`pgbouncer did not start:\n${logText().slice(-2000)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async pools(database) {
      const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2_000 });
      await client.connect();
      try {
        const { rows } = await client.query<Record<string, string>>('SHOW POOLS');
        const row = rows.find((r) => r['database'] === database);
        const n = (k: string) => Number(row?.[k] ?? 0);
        return {
          clActive: n('cl_active'),
          clWaiting: n('cl_waiting'),
          svActive: n('sv_active'),
          svIdle: n('sv_idle'),
          svUsed: n('sv_used'),
        };
      } finally {
        await client.end();
      }
    },
    log: logText,
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        // runuser forwards SIGTERM to pgbouncer; bounded wait, then SIGKILL.
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface HaCluster {
  dir: string;
  /** Through HAProxy: always the current primary. */
  databaseUrl: string;
  /** Through pgbouncer (transaction pooling) → HAProxy. */
  pgbouncerUrl: string;
  nodes: { name: 'node1' | 'node2'; url: string; rest: string }[];
  /** The node whose Patroni REST `/primary` answers 200 now, if any. */
  leader(): Promise<HaCluster['nodes'][number] | undefined>;
  /** The node whose REST `/sync` answers 200 now (the synchronous standby), if any. */
  syncStandby(): Promise<HaCluster['nodes'][number] | undefined>;
  /** `kill -9` of `node`'s postmaster (the pid in its postmaster.pid); returns the pid. */
  killPostmaster(node: HaCluster['nodes'][number]): number;
  down(): Promise<void>;
}

async function restOk(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** `scripts/ha/ha-cluster.sh up` on free ports; resolves once there is a leader and a sync standby. */
export async function startHaCluster(): Promise<HaCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-ha-'));
  const ports: Record<string, string> = {};
  for (const name of ['ETCD', 'ETCD_PEER', 'PG1', 'PG2', 'REST1', 'REST2', 'HAPROXY', 'PGBOUNCER']) {
    ports[`HA_${name}_PORT`] = String(await freePort());
  }
  const script = join(REPO_ROOT, 'scripts/ha/ha-cluster.sh');
  const down = async () => {
    await run(script, ['down', dir], { timeout: 90_000 }).catch((error: unknown) => {
      console.log(`# ha-cluster down: ${(error as Error).message}`);
    });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await run(script, ['up', dir], { env: { ...process.env, ...ports }, timeout: 150_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    await down();
    throw new Error(`scripts/ha/ha-cluster.sh up failed: ${(error as Error).message}\n${stderr.slice(-3000)}`);
  }
  const env = Object.fromEntries(
    readFileSync(join(dir, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  ) as Record<string, string>;
  const nodes: HaCluster['nodes'] = [
    { name: 'node1', url: env['NODE1_URL'] as string, rest: env['NODE1_REST'] as string },
    { name: 'node2', url: env['NODE2_URL'] as string, rest: env['NODE2_REST'] as string },
  ];
  const find = async (path: string) => {
    for (const node of nodes) if (await restOk(`${node.rest}${path}`)) return node;
    return undefined;
  };
  return {
    dir,
    databaseUrl: env['DATABASE_URL'] as string,
    pgbouncerUrl: env['PGBOUNCER_URL'] as string,
    nodes,
    leader: () => find('/primary'),
    syncStandby: () => find('/sync'),
    killPostmaster(node) {
      const pid = Number(readFileSync(join(dir, node.name, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      return pid;
    },
    down,
  };
}

export interface SandboxProviders {
  url: string;
  pid: number;
  close(): void;
}

/**
 * Waits for a child process to print `listening on http://…` and answers that URL; kills it and
 * rejects with its output if it exits first or has not printed it within 30 s. Its output is
 * drained afterwards.
 */
export async function awaitListening(child: ChildProcess, name: string): Promise<string> {
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start:\n${out}`));
    }, 30_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/[^\s;]+)/.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${name} exited:\n${out}`));
    });
  });
  child.stdout?.resume();
  child.stderr?.resume();
  return url;
}

/**
 * The sandbox providers as one process of their own (`npm run sandbox:providers`, docs/sandbox.md):
 * with several API processes, a payment created through one and simulated through another must
 * meet the same simulated bank, so the providers cannot live inside each API process. They notify
 * `tributaryUrl` (any API process: they share the database). The benchmark runs them this way too.
 */
export async function startSandboxProviders(
  secret: string,
  tributaryUrl: string,
  nodeArgs: string[] = [],
): Promise<SandboxProviders> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/sandbox/providers-main.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      SANDBOX_PROVIDER_SECRET: secret,
      SANDBOX_PROVIDERS_PORT: '0',
      TRIBUTARY_URL: tributaryUrl,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await awaitListening(child, 'sandbox providers');
  // SIGTERM (a profiled run writes its profile then), SIGKILL if it has not gone within 3 s.
  const close = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
  };
  return { url, pid: child.pid as number, close };
}
