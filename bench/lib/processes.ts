import { type ChildProcess, fork, spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  createMerchant,
  type Merchant,
  newSecret,
  REPO_ROOT,
  type ServerProcess,
  serverEnv,
  startServer,
  type StoreTarget,
  tempDir,
} from '../../test/reliability/harness/processes.ts';
import { adminQuery, freshDatabase } from '../../test/reliability/harness/databases.ts';
import { awaitListening, startSandboxProviders } from '../../test/reliability/harness/ha.ts';

/**
 * What one store needs for a benchmark run: a server under test (its own process, its own fresh
 * store, a merchant created with the CLI before it starts — or a prepared PostgreSQL database,
 * ExistingDatabase) and a ceiling process on a second fresh store configured identically.
 */
export type StoreKind = 'embedded' | 'postgres';

export interface CeilingProcess {
  child: ChildProcess;
  ask<T>(message: Record<string, unknown>, answer: string, timeoutMs: number): Promise<T>;
  stop(): Promise<void>;
}

export interface BenchStore {
  kind: StoreKind;
  server: ServerProcess;
  merchant: Merchant;
  ceiling: CeilingProcess;
  target: StoreTarget;
  /** The ceiling process's own store. */
  ceilingTarget: StoreTarget;
  secret: string;
  /** The sandbox providers' own process, when they run apart from the server. */
  providers?: { pid: number; url: string };
  /** The create ceiling's bare provider route in a process of its own (with separate providers). */
  providerEcho?: { pid: number; url: string };
  cleanup(): Promise<void>;
}

/** Environment shared by the server under test and the ceiling process (production defaults). */
export const BENCH_ENV = { LOG_LEVEL: 'info', WEBHOOK_ALLOWLIST: '127.0.0.1' };

export async function startCeiling(
  target: StoreTarget,
  secret: string,
  env: Record<string, string> = {},
): Promise<CeilingProcess> {
  const child = fork(join(REPO_ROOT, 'bench/ceiling/ceiling-process.ts'), [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', 'tsx'],
    env: serverEnv(target, secret, { ...BENCH_ENV, ...env }),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const keep = (c: Buffer) => {
    output = (output + c.toString()).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const ask = <T>(message: Record<string, unknown> | undefined, answer: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => done(new Error(`ceiling process: no "${answer}" within ${timeoutMs} ms\n${output}`)),
        timeoutMs,
      );
      const onMessage = (m: { type: string; message?: string }) => {
        if (m.type === answer) done(undefined, m as T);
        else if (m.type === 'error') done(new Error(`ceiling process failed: ${m.message}`));
      };
      const onExit = () => done(new Error(`ceiling process exited\n${output}`));
      function done(error: Error | undefined, value?: T) {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        if (error === undefined) resolve(value as T);
        else reject(error);
      }
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (message !== undefined) child.send(message);
    });
  await ask(undefined, 'ready', 60_000);
  return {
    child,
    ask: (message, answer, timeoutMs) => ask(message, answer, timeoutMs),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * The create ceiling's bare provider route (bench/ceiling/provider-echo.ts) as a process of its
 * own, as the sandbox providers are on PostgreSQL.
 */
export async function startProviderEcho(): Promise<{ pid: number; url: string; close(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/ceiling/provider-echo.ts'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await awaitListening(child, 'provider echo');
  return {
    pid: child.pid ?? 0,
    url,
    close: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * After a write-heavy window, before a window that is compared with another: flush and tidy the
 * PostgreSQL database so the next window is not measured in the wake of the last one (a checkpoint
 * and autovacuum after tens of thousands of writes slowed the read window that followed by up to
 * 5× in an earlier run). The embedded store's own maintenance job vacuums every minute; there is
 * nothing to reach from outside its process.
 */
export async function settleAfterWrites(target: StoreTarget): Promise<void> {
  if (target.kind !== 'postgres') return;
  await adminQuery(target.url, 'CHECKPOINT');
  await adminQuery(target.url, 'VACUUM (ANALYZE)');
}

/**
 * A PostgreSQL database the caller prepared (bench/history.ts preloads one), with the deployment
 * secret its merchant's keys were made under. The server under test runs on it instead of on a
 * fresh database; the caller keeps it (cleanup() does not drop it).
 */
export interface ExistingDatabase {
  url: string;
  secret: string;
  merchant: Merchant;
}

export async function setupStore(
  kind: StoreKind,
  serverNodeArgs: string[] = [],
  options: { separateProviders?: boolean; serverEnv?: Record<string, string>; database?: ExistingDatabase } = {},
): Promise<BenchStore> {
  const existing = options.database;
  if (existing !== undefined && kind !== 'postgres') throw new Error('setupStore: an existing database is PostgreSQL');
  const secret = existing?.secret ?? newSecret();
  const cleanups: (() => Promise<void> | void)[] = [];
  let target: StoreTarget;
  let ceilingTarget: StoreTarget;
  if (existing !== undefined) {
    // The ceiling process still gets a fresh database of its own, as in every other run.
    const ceiling = await freshDatabase('bench_ceiling');
    cleanups.push(() => ceiling.drop());
    target = { kind: 'postgres', url: existing.url };
    ceilingTarget = { kind: 'postgres', url: ceiling.url };
  } else if (kind === 'embedded') {
    const dir = tempDir('bench');
    cleanups.push(() => dir.remove());
    target = { kind, dataDir: join(dir.path, 'api') };
    ceilingTarget = { kind, dataDir: join(dir.path, 'ceiling') };
  } else {
    const [api, ceiling] = await Promise.all([freshDatabase('bench_api'), freshDatabase('bench_ceiling')]);
    cleanups.push(
      () => api.drop(),
      () => ceiling.drop(),
    );
    target = { kind, url: api.url };
    ceilingTarget = { kind, url: ceiling.url };
  }
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c();
  };
  try {
    let providers: { pid: number; url: string } | undefined;
    let providerEcho: { pid: number; url: string } | undefined;
    const ceilingEnv: Record<string, string> = {};
    const env: Record<string, string> = { ...BENCH_ENV, ...options.serverEnv };
    if (options.separateProviders === true) {
      // Apart from the server, so that its memory (and CPU) is Tributary's alone: a simulated
      // provider keeps every charge it made. Its notifications go nowhere (no payer acts in a bench).
      const p = await startSandboxProviders(secret, 'http://127.0.0.1:9', serverNodeArgs);
      cleanups.push(() => p.close());
      providers = { pid: p.pid, url: p.url };
      env['SANDBOX_PROVIDER_URL'] = p.url;
      env['SANDBOX_PROVIDER_SECRET'] = secret;
      const echo = await startProviderEcho();
      cleanups.push(() => echo.close());
      providerEcho = { pid: echo.pid, url: echo.url };
      ceilingEnv['CEILING_PROVIDER_URL'] = echo.url;
    }
    const [merchantAndServer, ceiling] = await Promise.all([
      (async () => {
        const merchant = existing?.merchant ?? (await createMerchant(target, secret, 'Bench merchant'));
        const server = await startServer({ target, secret, env, nodeArgs: serverNodeArgs });
        cleanups.push(async () => {
          if (server.child.exitCode === null && server.child.signalCode === null) await server.terminate();
        });
        return { merchant, server };
      })(),
      startCeiling(ceilingTarget, secret, ceilingEnv).then((c) => {
        cleanups.push(() => c.stop());
        return c;
      }),
    ]);
    return {
      kind,
      ...merchantAndServer,
      ceiling,
      target,
      ceilingTarget,
      secret,
      ...(providers === undefined ? {} : { providers }),
      ...(providerEcho === undefined ? {} : { providerEcho }),
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
