import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomChunk, randomToken } from '../../src/lib/random.ts';

describe('random pool', () => {
  it('serves every byte once: chunks across refills never repeat, sizes are exact', () => {
    const seen = new Set<string>();
    // 3,000 × 10 bytes crosses the 4 KiB pool several times.
    for (let i = 0; i < 3_000; i += 1) {
      const chunk = randomChunk(10);
      assert.equal(chunk.length, 10);
      const hex = chunk.toString('hex');
      assert.ok(!seen.has(hex), `repeated chunk after ${i}`);
      seen.add(hex);
    }
    assert.equal(randomChunk(10_000).length, 10_000, 'larger than the pool: its own call');
  });

  it('hands out copies: a refill does not change bytes already served', () => {
    const first = randomChunk(16);
    const copy = Buffer.from(first);
    for (let i = 0; i < 600; i += 1) randomChunk(16); // > 4 KiB: the pool refills
    assert.deepEqual(first, copy);
  });

  it('tokens are base64url of the requested size', () => {
    assert.match(randomToken(12), /^[A-Za-z0-9_-]{16}$/);
    assert.notEqual(randomToken(12), randomToken(12));
  });
});
