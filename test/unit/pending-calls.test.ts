import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PendingCalls } from '../../src/lib/pending-calls.ts';

describe('PendingCalls', () => {
  it('gives the first waiter id 0 and each waiter its own id while they wait', () => {
    const calls = new PendingCalls<string>();
    const ids = ['a', 'b', 'c'].map((w) => calls.add(w));
    assert.equal(ids[0], 0);
    assert.equal(new Set(ids).size, 3);
    assert.equal(calls.size, 3);
    assert.deepEqual(
      ids.map((id) => calls.get(id)),
      ['a', 'b', 'c'],
    );
  });

  it('takes a waiter once: a repeated answer finds nothing', () => {
    const calls = new PendingCalls<string>();
    const id = calls.add('a');
    assert.equal(calls.take(id), 'a');
    assert.equal(calls.take(id), undefined);
    assert.equal(calls.get(id), undefined);
    assert.equal(calls.size, 0);
  });

  it('reuses a freed slot under a new id, so a stale id never reaches the new waiter', () => {
    const calls = new PendingCalls<string>();
    const first = calls.add('a');
    calls.take(first);
    const second = calls.add('b');
    assert.notEqual(second, first);
    assert.equal(calls.get(first), undefined);
    assert.equal(calls.take(first), undefined);
    assert.equal(calls.take(second), 'b');
  });

  it('grows only with the most waiters at once, however many come and go', () => {
    const calls = new PendingCalls<number>();
    const live: number[] = [];
    for (let i = 0; i < 10_000; i += 1) {
      live.push(calls.add(i));
      if (live.length > 4) assert.equal(calls.take(live.shift() as number), i - 4);
    }
    assert.equal(calls.size, 4);
    // Four live and one freed a moment before the last add: five slots ever, so every id's slot is below 5.
    assert.ok(live.every((id) => id % 2 ** 21 < 5));
  });

  it('answers nothing for ids it never gave out', () => {
    const calls = new PendingCalls<string>();
    calls.add('a');
    for (const id of [-1, 1, 0.5, Number.NaN, 2 ** 21]) assert.equal(calls.get(id), undefined, String(id));
  });

  it('hands over every waiter on takeAll and is empty after it', () => {
    const calls = new PendingCalls<string>();
    const ids = ['a', 'b', 'c'].map((w) => calls.add(w));
    calls.take(ids[1] as number);
    assert.deepEqual(calls.takeAll().sort(), ['a', 'c']);
    assert.equal(calls.size, 0);
    assert.ok(ids.every((id) => calls.get(id) === undefined));
    assert.equal(calls.get(calls.add('d')), 'd');
  });
});
