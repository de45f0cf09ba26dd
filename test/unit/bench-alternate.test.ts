import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alternateIfAbove, pacingCeilingRps, type Windows } from '../../bench/lib/measure.ts';
import { type Row, row } from '../../bench/lib/report.ts';

// The "above its ceiling" flag (issue 27) is re-judged on alternated windows: it is the instrument
// that says whether a ceiling is one, so it is tested like code that ships.

const w: Windows = { seconds: 2, warmupSeconds: 0, connections: 1, progress: () => undefined };
const noProcesses = { service: {}, ceiling: {} };
const m = (rps: number) => ({ rps, p50Ms: 1, p99Ms: 2, errors: 0 });

/** Windows that answer the given rates in turn and record the order they ran in. */
function windows(ceilings: number[], scenarios: number[]) {
  const order: string[] = [];
  const seconds: number[] = [];
  return {
    order,
    seconds,
    ceiling: async (s: number) => {
      order.push('ceiling');
      seconds.push(s);
      return { rps: ceilings.shift() ?? 0 };
    },
    scenario: async (s: number) => {
      order.push('scenario');
      seconds.push(s);
      return { rps: scenarios.shift() ?? 0 };
    },
  };
}

describe('bench: a scenario above its ceiling is measured again beside it', () => {
  it('leaves a row within noise of its ceiling alone, without a window', async () => {
    const r = row('get', 'embedded', 'scenario', m(1050), 1000);
    assert.equal(r.ceiling_exceeded, undefined);
    const ws = windows([], []);
    assert.deepEqual(await alternateIfAbove(w, noProcesses, r, ws.ceiling, ws.scenario), r);
    assert.deepEqual(ws.order, []);
  });

  it('clears the flag when the alternated windows put the scenario within noise', async () => {
    const r: Row = row('get', 'embedded', 'scenario', m(1300), 1000);
    assert.equal(r.ceiling_exceeded, true);
    const ws = windows([1700, 1600, 1500], [1600, 1700, 1600]);
    const after = await alternateIfAbove(w, noProcesses, r, ws.ceiling, ws.scenario);
    assert.deepEqual(ws.order, ['ceiling', 'scenario', 'ceiling', 'scenario', 'ceiling', 'scenario']);
    assert.deepEqual(ws.seconds, [1, 1, 1, 1, 1, 1]);
    assert.equal(after.ceiling_exceeded, undefined);
    assert.equal(after.ratio, 1.3, 'the single-window ratio stays on the row');
    assert.deepEqual(after.alternated?.ceiling_rps, [1700, 1600, 1500]);
    assert.deepEqual(after.alternated?.rps, [1600, 1700, 1600]);
    assert.equal(after.alternated?.ratio, 1.021); // 4,900 / 4,800 operations
  });

  it('keeps the flag when the scenario beats its ceiling side by side', async () => {
    const r = row('create_replay', 'embedded', 'scenario', m(1570), 1000);
    const ws = windows([1000, 1100, 900], [1300, 1250, 1200]);
    const after = await alternateIfAbove(w, noProcesses, r, ws.ceiling, ws.scenario);
    assert.equal(after.ceiling_exceeded, true);
    assert.equal(after.alternated?.ratio, 1.25);
  });
});

describe('bench: a paced row takes half of a ceiling that is one', () => {
  it('paces at the one window when the scenario stayed within noise of it', () => {
    const r = row('get', 'postgres', 'scenario', m(1050), 1000);
    assert.equal(pacingCeilingRps(1000, r), 1000);
  });

  it('paces at the alternated ceiling windows when the one window was below the scenario', async () => {
    const r = row('get', 'postgres', 'scenario', m(1954), 1077);
    const ws = windows([2471, 2112, 2138], [1826, 1731, 1962]);
    const again = await alternateIfAbove(w, noProcesses, r, ws.ceiling, ws.scenario);
    assert.equal(pacingCeilingRps(1077, again), (2471 + 2112 + 2138) / 3);
  });
});
