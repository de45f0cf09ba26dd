import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_SECRET } from './test-app.ts';

/**
 * Real Tributary processes for tests that need them (crash, lock, CLI, first start). Every wait is
 * bounded; every process is killed at the end of its test.
 */
export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  output(): string;
  /** Resolves with the exit code (or null when killed by a signal). */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

const START_TIMEOUT_MS = 60_000;

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'tributary-test-'));
}

export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', TRIBUTARY_SECRET: TEST_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server did not start within ${START_TIMEOUT_MS} ms:\n${out}`)),
      START_TIMEOUT_MS,
    );
    const check = () => {
      const match = /listening on (http:\/\/[^\s]+) /.exec(out);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    proc.stdout?.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${String(code)} before listening:\n${out}`));
    });
  });
  return {
    url,
    proc,
    output: () => out,
    exited,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to completion (bounded) and returns its exit code and output. */
export function runCli(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['bin/tributary.js', ...args], {
    env: { ...process.env, TRIBUTARY_SECRET: TEST_SECRET, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
