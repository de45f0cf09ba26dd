import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PacedSteps } from '../../src/lib/paced-steps.ts';

describe('PacedSteps (decisions 0032, 0036)', () => {
  it('pauses before every statement but the first, as long as the one before took and never less than the least', async () => {
    const pauses: number[] = [];
    const paced = new PacedSteps(10, async (ms) => {
      pauses.push(ms);
    });
    assert.equal(await paced.step(async () => 'first'), 'first');
    assert.deepEqual(pauses, [], 'nothing before the first');
    await paced.step(async () => sleep(30));
    await paced.step(async () => undefined);
    assert.equal(pauses.length, 2);
    assert.equal(pauses[0], 10, 'a quick statement: the least pause');
    assert.ok((pauses.at(1) ?? 0) >= 30, `after a 30 ms statement: ${pauses.at(1)} ms`);
  });

  it('times a statement that fails too, and tells how long it took', async () => {
    const pauses: number[] = [];
    const told: number[] = [];
    const paced = new PacedSteps(1, async (ms) => {
      pauses.push(ms);
    });
    await assert.rejects(
      paced.timed(
        async () => {
          await sleep(20);
          throw new Error('refused');
        },
        (ms) => told.push(ms),
      ),
      /refused/,
    );
    assert.equal(told.length, 1);
    assert.ok((told[0] as number) >= 19, `told ${told[0]} ms`);
    await paced.paceNext();
    assert.ok((pauses[0] as number) >= 19, `paused ${pauses[0]} ms after the failed statement`);
  });
});
