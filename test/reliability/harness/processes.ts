import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Real Tributary processes for the reliability suite and the benchmarks: the API server
 * (`src/main.ts`) and the admin CLI, each its own OS process on loopback, configured only through
 * the environment exactly as an operator would. Every wait here has a deadline.
 */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const newSecret = () => randomBytes(32).toString('hex');

/** Where a server keeps its data: a DATA_DIR (embedded) or a DATABASE_URL (PostgreSQL). */
export type StoreTarget = { kind: 'embedded'; dataDir: string } | { kind: 'postgres'; url: string };

export interface Merchant {
  id: string;
  sandboxKey: string;
  productionKey: string;
}

/** The inherited environment without anything that could redirect or reconfigure a Tributary process. */
function cleanEnv(target: StoreTarget): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(DATABASE_URL|DATA_DIR|TRIBUTARY_|PORT$|HOST$|TEST_STORE|REDIS_URL|RUN_JOBS|LOG_LEVEL|DB_|IDEMPOTENCY_|CONNECTOR_|CREATION_|PUBLIC_BASE_URL|NODE_OPTIONS|RATE_LIMIT_|WEBHOOK_|SANDBOX_|SETTLEMENT_|STATUS_SYNC_|AUTH_CACHE_|BODY_LIMIT_|EVENT_RETENTION_|PRODUCTION_CONNECTORS|OTEL_)/.test(
        name,
      )
    ) {
      delete env[name];
    }
  }
  if (target.kind === 'embedded') env['DATA_DIR'] = target.dataDir;
  else env['DATABASE_URL'] = target.url;
  return env;
}

/** The variables a test decides; anything inherited that could redirect the process is dropped. */
export function serverEnv(target: StoreTarget, secret: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  // Rate limits are a feature under test elsewhere; here they would turn load into 429s.
  return {
    ...cleanEnv(target),
    TRIBUTARY_SECRET: secret,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    ...extra,
  };
}

/**
 * The environment of a server started as the README says: only the store and the port, every
 * other setting at its default (rate limits on, info logs, the embedded store generating its own
 * secret). PostgreSQL needs TRIBUTARY_SECRET, so `secret` is passed there and only there.
 */
export function readmeEnv(target: StoreTarget, port: number, secret?: string): NodeJS.ProcessEnv {
  return { ...cleanEnv(target), PORT: String(port), ...(secret === undefined ? {} : { TRIBUTARY_SECRET: secret }) };
}

/** A bounded tail of a process's output, for failure messages. */
class OutputTail {
  private text = '';
  constructor(private readonly maxChars: number) {}
  push(chunk: Buffer | string): void {
    this.text += chunk.toString();
    if (this.text.length > this.maxChars) this.text = this.text.slice(-this.maxChars);
  }
  toString(): string {
    return this.text;
  }
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  exited: Promise<Exit>;
  output(): string;
  /** SIGKILL and wait for the process to be gone. */
  kill9(): Promise<Exit>;
  /**
   * SIGKILL (the whole group under `npm start`) and return at once, as a crash seen by a supervisor
   * that restarts without waiting: the killed processes may still be exiting, or zombies not yet
   * reaped, when the next start runs. `exited` resolves when the direct child is gone.
   */
  crash(): void;
  /** SIGTERM and wait (at most `timeoutMs`, then SIGKILL and reject). */
  terminate(timeoutMs?: number): Promise<Exit>;
}

export interface StartServerOptions {
  target: StoreTarget;
  secret: string;
  /** More environment (IDEMPOTENCY_LEASE_MS, DB_POOL_SIZE, …). */
  env?: Record<string, string>;
  /** Node flags before the script, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  startTimeoutMs?: number;
}

/**
 * Starts the server exactly as the README does: `npm start` (npm → sh → node) in a process group
 * of its own, with `env` (see readmeEnv). kill9() then kills the whole group with SIGKILL, as a
 * crash, the OOM killer or a power cut would take every process at once.
 */
export async function startAsReadme(env: NodeJS.ProcessEnv, startTimeoutMs = 60_000): Promise<ServerProcess> {
  const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return attachServer(child, startTimeoutMs, true);
}

function waitExit(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts `src/main.ts` on an ephemeral port (PORT=0) and resolves once it printed the address it
 * listens on. The caller stops it (kill9/terminate); a failed start kills it and rejects with its
 * output.
 */
export async function startServer(options: StartServerOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), '--import', 'tsx', 'src/main.ts'], {
    cwd: REPO_ROOT,
    env: serverEnv(options.target, options.secret, { PORT: '0', ...(options.env ?? {}) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return attachServer(child, options.startTimeoutMs ?? 30_000, false);
}

/** True while any process of group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for "Tributary is listening on …" from a spawned server; `group`: it leads its own process group. */
async function attachServer(child: ChildProcess, startTimeoutMs: number, group: boolean): Promise<ServerProcess> {
  const tail = new OutputTail(64 * 1024);
  const exited = waitExit(child);
  const listening = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      stdout += chunk.toString();
      const match = /Tributary is listening on (http:\/\/[^\s]+?) \(/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
      if (stdout.length > 16_384) stdout = stdout.slice(-4096);
    });
    child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    void exited.then((exit) => reject(new Error(`server exited during start (${JSON.stringify(exit)}):\n${tail.toString()}`)));
  });
  const pid = child.pid as number;
  const kill = (signal: NodeJS.Signals) => (group ? process.kill(-pid, signal) : child.kill(signal));
  // Under `npm start` the group is npm, a shell and node, and npm may exit before node does: the
  // process has stopped only when the whole group is gone. (A restart need not wait for that: see
  // crash(), and decision 0021 for the store lock.)
  async function groupGone(timeoutMs: number): Promise<void> {
    for (let waited = 0; group && groupAlive(pid); waited += 20) {
      if (waited > timeoutMs) throw new Error(`process group ${pid} still alive after ${timeoutMs} ms`);
      await sleep(20);
    }
  }
  async function kill9(): Promise<Exit> {
    kill('SIGKILL');
    const exit = await exited;
    await groupGone(10_000);
    return exit;
  }
  let url: string;
  try {
    url = await withDeadline(listening, startTimeoutMs, 'server start');
  } catch (error) {
    await kill9();
    throw error;
  }
  return {
    url,
    pid,
    child,
    exited,
    output: () => tail.toString(),
    kill9,
    crash: () => kill('SIGKILL'),
    async terminate(timeoutMs = 20_000) {
      kill('SIGTERM');
      try {
        const exit = await withDeadline(exited, timeoutMs, `SIGTERM of server ${pid}`);
        await groupGone(timeoutMs);
        return exit;
      } catch (error) {
        await kill9();
        throw error;
      }
    },
  };
}

/** `npx tributary merchants create --name NAME --json`, against the same store as the servers. */
export async function createMerchant(target: StoreTarget, secret: string, name: string): Promise<Merchant> {
  const child = spawn(process.execPath, ['bin/tributary.js', 'merchants', 'create', '--name', name, '--json'], {
    cwd: REPO_ROOT,
    env: serverEnv(target, secret, {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = new OutputTail(16 * 1024);
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => out.push(c));
  let exit: Exit;
  try {
    exit = await withDeadline(waitExit(child), 60_000, 'tributary merchants create');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (exit.code !== 0) throw new Error(`tributary merchants create failed (${JSON.stringify(exit)}):\n${out.toString()}`);
  const line = out
    .toString()
    .split('\n')
    .find((l) => l.startsWith('{"id"'));
  if (line === undefined) throw new Error(`tributary merchants create printed no JSON:\n${out.toString()}`);
  const parsed = JSON.parse(line) as { id: string; api_keys: { sandbox: string; production: string } };
  return { id: parsed.id, sandboxKey: parsed.api_keys.sandbox, productionKey: parsed.api_keys.production };
}

/** A temporary directory removed by `remove()`. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `tributary-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** For cleanups: SIGKILL the server unless it already exited. */
export async function killIfRunning(server: ServerProcess | undefined): Promise<void> {
  if (server !== undefined && server.child.exitCode === null && server.child.signalCode === null) await server.kill9();
}
