import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedTail, slowClusters } from '../../bench/lib/tail.ts';

// What a paced row says about its tail (issue 27): a stall shows as one cluster of many answers,
// scattered slow answers as many small ones.

describe('the tail of a paced window', () => {
  // 1,000 answers due 1 ms apart, 1 ms each, with a 40 ms stall from 300 ms (the answers due
  // during it wait for its end) and two lone slow answers at 700 and 900 ms.
  const samples = Array.from({ length: 1000 }, (_, due) => {
    if (due >= 300 && due < 340) return { due, ms: 340 - due + 1 };
    if (due === 700 || due === 900) return { due, ms: 12 };
    return { due, ms: 1 };
  });

  it('groups the slow answers of one stall into one cluster and keeps lone ones apart', () => {
    const clusters = slowClusters(samples, 5);
    assert.deepEqual(
      clusters.map((c) => [c.from, c.to, c.answers, c.maxMs]),
      [
        [300, 335, 36, 41],
        [700, 700, 1, 12],
        [900, 900, 1, 12],
      ],
    );
  });

  it('joins slow answers due within the gap and splits them beyond it', () => {
    const two = [
      { due: 0, ms: 20 },
      { due: 50, ms: 20 },
      { due: 101, ms: 20 },
    ];
    assert.deepEqual(
      slowClusters(two, 10).map((c) => c.answers),
      [2, 1],
    );
  });

  it('reports the largest clusters in time order and the generator collections', () => {
    const tail = pacedTail(
      samples,
      5,
      [
        { at: 10, ms: 2.04 },
        { at: 500, ms: 7.51 },
      ],
      2,
    );
    assert.equal(tail.clusters, 3);
    assert.deepEqual(tail.largest, [
      { from_s: 0.3, to_s: 0.34, answers: 36, max_ms: 41 },
      { from_s: 0.7, to_s: 0.7, answers: 1, max_ms: 12 },
    ]);
    assert.deepEqual(tail.load_gc, { collections: 2, total_ms: 9.6, max_ms: 7.5, long: [[0.5, 7.5]] });
  });

  it('says no collections when the generator had none', () => {
    assert.deepEqual(pacedTail([], 1, []).load_gc, { collections: 0, total_ms: 0, max_ms: 0, long: [] });
  });
});
