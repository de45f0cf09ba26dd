import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { firstTickDelay, startJobs } from '../../src/jobs/job-runner.ts';
import { createLogger } from '../../src/lib/logger.ts';

const log = createLogger('silent');

/** Lets the ticks' async bodies (span, run) reach the job's run(). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('startJobs', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('starts the jobs out of step: job i of n first ticks at (i + 1) / (n + 1) of its interval', async () => {
    const ran: string[] = [];
    const job = (name: string) => ({
      name,
      intervalMs: 60_000,
      batchSize: 10,
      run: async () => {
        ran.push(name);
        return 0;
      },
    });
    const jobs = startJobs([job('a'), job('b'), job('c')], log);
    const at = async (ms: number) => {
      mock.timers.tick(ms);
      await settle();
      return [...ran];
    };
    assert.deepEqual(await at(14_999), []);
    assert.deepEqual(await at(1), ['a']);
    assert.deepEqual(await at(15_000), ['a', 'b']);
    assert.deepEqual(await at(15_000), ['a', 'b', 'c']);
    // Then each every interval from its own first tick: a at 75 s, b at 90 s.
    assert.deepEqual(await at(30_000), ['a', 'b', 'c', 'a']);
    assert.deepEqual(await at(15_000), ['a', 'b', 'c', 'a', 'b']);
    await jobs.stop();
    assert.deepEqual(await at(120_000), ['a', 'b', 'c', 'a', 'b'], 'no tick after stop()');
  });

  it('stop() before the first tick cancels it', async () => {
    let runs = 0;
    const jobs = startJobs([{ name: 'x', intervalMs: 1_000, batchSize: 1, run: async () => (runs += 1) && 0 }], log);
    await jobs.stop();
    mock.timers.tick(10_000);
    await settle();
    assert.equal(runs, 0);
  });
});

describe('firstTickDelay', () => {
  it('spreads a minute-long job over its interval and never waits longer than one interval', () => {
    const delays = Array.from({ length: 13 }, (_, i) => firstTickDelay(60_000, i, 13));
    assert.equal(delays[0], 4_286);
    assert.equal(delays[12], 55_714);
    assert.ok(delays.every((d, i) => d > 0 && d < 60_000 && (i === 0 || d > (delays[i - 1] ?? 0))));
  });
});
