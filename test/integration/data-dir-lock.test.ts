import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DataDirInUseError, lockDataDir, readProcessStat } from '../../src/db/data-dir-lock.ts';
import { tempDataDir } from '../harness/server-process.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The embedded data directory lock (decision 0021), with real processes: a crashed holder left as
 * a zombie, a lock file naming a live unrelated process, a live holder, a holder shutting down, and
 * two starts racing. Both mechanisms where they differ: the kernel lock (flock, Linux) and the
 * pid-file fallback.
 */
const once = { skip: TEST_STORE === 'postgres' ? 'runs in the embedded pass' : false };
const HOLDER = ['--import', 'tsx', 'test/harness/lock-holder.ts'];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

interface HolderLine {
  result: 'locked' | 'refused';
  pid: number;
  message?: string;
}

/** Spawns `command` and resolves with the first JSON line a lock holder prints (bounded). */
function spawnHolder(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  let out = '';
  const line = new Promise<HolderLine>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer from the lock holder:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const first = out.split('\n').find((l) => l.startsWith('{'));
      if (first !== undefined && out.includes('\n')) {
        clearTimeout(timer);
        resolve(JSON.parse(first) as HolderLine);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  });
  return { child, line };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await fn();
  return { value, ms: Date.now() - started };
}

for (const mechanism of ['flock', 'pidfile'] as const) {
  describe(`data directory lock (${mechanism})`, once, () => {
    it('a holder killed and left a zombie (not yet reaped) is taken over at once', async () => {
      const dataDir = tempDataDir();
      // The shell starts the holder in the background and becomes `sleep`, which never reaps it:
      // after SIGKILL the holder stays a zombie, as a killed server does until init reaps it.
      const script = `"${process.execPath}" ${HOLDER.join(' ')} "${dataDir}" & exec sleep 60`;
      const parent = spawnHolder('sh', ['-c', script], { LOCK_HOLDER_MECHANISM: mechanism });
      const holder = await parent.line;
      assert.equal(holder.result, 'locked');
      process.kill(holder.pid, 'SIGKILL');
      await waitFor('the holder becomes a zombie', () => readProcessStat(holder.pid)?.state === 'Z');
      assert.doesNotThrow(() => process.kill(holder.pid, 0), 'a zombie can still be signalled: the old check counted it alive');

      const { value: lock, ms } = await timed(() => lockDataDir(dataDir, 'test', { mechanism, dyingWaitMs: 10_000 }));
      assert.ok(ms < 2_000, `taken over without waiting for the zombie to be reaped (${ms} ms)`);
      assert.equal(readProcessStat(holder.pid)?.state, 'Z', 'still a zombie when the lock was taken');
      lock.release();
      parent.child.kill('SIGKILL');
    });

    it('a lock file naming a live unrelated process (a reused pid) is taken over', async () => {
      const dataDir = tempDataDir();
      const unrelated = spawn('sleep', ['60'], { stdio: 'ignore' });
      children.push(unrelated);
      const pid = unrelated.pid as number;
      await waitFor('sleep runs', () => readProcessStat(pid) !== undefined);
      // What a Tributary that ran as this pid at another time would have written.
      writeFileSync(
        join(dataDir, 'tributary.lock'),
        JSON.stringify({ pid, owner: 'server', started_at: '2026-01-01T00:00:00Z', start_ticks: '1' }),
      );
      const { value: lock, ms } = await timed(() => lockDataDir(dataDir, 'test', { mechanism, dyingWaitMs: 10_000 }));
      assert.ok(ms < 2_000, `taken over at once (${ms} ms)`);
      lock.release();
      unrelated.kill('SIGKILL');
    });

    it('a live holder is refused at once with the clear error; one shutting down is waited for', async () => {
      const dataDir = tempDataDir();
      const first = spawnHolder(process.execPath, [...HOLDER, dataDir], {
        LOCK_HOLDER_DRAIN_MS: '700',
        LOCK_HOLDER_MECHANISM: mechanism,
      });
      const holder = await first.line;
      assert.equal(holder.result, 'locked');

      const refused = await timed(() =>
        lockDataDir(dataDir, 'test', { mechanism, dyingWaitMs: 10_000, stoppingWaitMs: 10_000 }).then(
          () => assert.fail('a second holder got the lock'),
          (error: unknown) => error,
        ),
      );
      assert.ok(refused.value instanceof DataDirInUseError);
      assert.match(refused.value.message, new RegExp(`in use by another Tributary process \\(pid ${holder.pid}, lock-holder\\)`));
      assert.ok(refused.ms < 2_000, `refused without waiting (${refused.ms} ms)`);

      // SIGTERM: the holder marks itself stopping and exits 700 ms later; a start meanwhile waits.
      first.child.kill('SIGTERM');
      await waitFor('the holder says it is stopping', () => {
        try {
          return (JSON.parse(readFileSync(join(dataDir, 'tributary.lock'), 'utf8')) as { stopping?: boolean }).stopping === true;
        } catch {
          return false;
        }
      });
      const waited = await timed(() => lockDataDir(dataDir, 'test', { mechanism, dyingWaitMs: 10_000, stoppingWaitMs: 10_000 }));
      assert.ok(waited.ms >= 100, `it waited for the stopping holder (${waited.ms} ms)`);
      const old = readProcessStat(holder.pid);
      assert.ok(old === undefined || old.state === 'Z', `the old holder has exited (${JSON.stringify(old)})`);
      waited.value.release();
    });
  });
}

describe('data directory lock: two starts racing', once, () => {
  it('exactly one of two simultaneous starts gets the directory, on each of 50 rounds', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 50; round += 1) {
      const dataDir = tempDataDir();
      const racers = [0, 1].map(() => spawnHolder(process.execPath, [...HOLDER, dataDir]));
      const lines = await Promise.all(racers.map((r) => r.line));
      const won = lines.filter((l) => l.result === 'locked');
      outcomes.push(lines.map((l) => l.result).join('/'));
      assert.equal(won.length, 1, `round ${round}: ${JSON.stringify(lines)}`);
      const lost = lines.find((l) => l.result === 'refused');
      assert.match(lost?.message ?? '', new RegExp(`pid ${won[0]?.pid}, lock-holder`), 'the loser names the winner');
      for (const r of racers) r.child.kill('SIGKILL');
    }
    assert.equal(outcomes.length, 50);
  });
});
