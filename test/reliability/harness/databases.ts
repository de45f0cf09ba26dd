import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * PostgreSQL for the reliability suite and the benchmarks. Fresh databases live on the machine's
 * server (ADMIN_URL); outage tests get a throwaway cluster of their own on another port, so that
 * stopping it never touches anybody else's database.
 */
export const ADMIN_URL = process.env['RELIABILITY_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function adminQuery(adminUrl: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

export interface FreshDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE with a unique name; drop() removes it even if connections are left. */
export async function freshDatabase(prefix: string, adminUrl = ADMIN_URL): Promise<FreshDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return {
    name,
    url: databaseUrl(adminUrl, name),
    drop: async () => {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** A TCP port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The newest installed PostgreSQL's binaries (PG_BINDIR overrides). */
function binDir(): string {
  const override = process.env['PG_BINDIR'];
  if (override !== undefined && override !== '') return override;
  for (const version of [17, 16, 15, 14]) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  return ''; // rely on PATH
}

export interface OwnCluster {
  port: number;
  /** The admin URL of the cluster (database `postgres`). */
  adminUrl: string;
  running: boolean;
  /** `pg_ctl stop -m immediate`: like a crash, no checkpoint, clients cut off at once. */
  stopImmediate(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
  log(): string;
}

/**
 * initdb + pg_ctl in a temporary directory, as the `postgres` OS user when we are root (initdb
 * refuses to run as root). Loopback only, trust authentication, its own socket directory.
 */
export async function startOwnCluster(): Promise<OwnCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-pgcluster-'));
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const asRoot = process.getuid?.() === 0;
  const bin = binDir();
  const tool = (name: string) => (bin === '' ? name : join(bin, name));
  const exec = async (name: string, args: string[], timeoutMs: number) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', tool(name), ...args]] : [tool(name), args];
    await run(file, argv, { timeout: timeoutMs });
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await exec('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], 60_000);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200 -c shared_buffers=32MB`;
  const cluster: OwnCluster = {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    running: false,
    async start() {
      await exec('pg_ctl', ['-D', dataDir, '-o', options, '-l', logFile, '-w', '-t', '30', 'start'], 40_000);
      cluster.running = true;
    },
    async stopImmediate() {
      await exec('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop'], 40_000);
      cluster.running = false;
    },
    async destroy() {
      if (cluster.running) await cluster.stopImmediate().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-8192) : ''),
  };
  try {
    await cluster.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
