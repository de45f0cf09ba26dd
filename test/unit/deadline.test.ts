import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { deadline } from '../../src/lib/deadline.ts';

describe('deadline', () => {
  it('aborts after its time even when nothing else references it (garbage collection cannot drop it)', async () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 20);
    // Allocate to encourage a collection while the timer is pending.
    const junk: unknown[] = [];
    for (let i = 0; i < 200_000; i += 1) junk.push({ i });
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise<void>((resolve) => d.signal.addEventListener('abort', () => resolve(), { once: true }));
    assert.equal(d.timedOut(), true);
    assert.equal((d.signal.reason as DOMException).name, 'TimeoutError');
    d.dispose();
    assert.ok(junk.length > 0);
  });

  it('follows its parent, and dispose detaches from it', () => {
    const parent = new AbortController();
    const d = deadline(parent.signal, 10_000);
    parent.abort(new Error('request ended'));
    assert.equal(d.signal.aborted, true);
    assert.equal(d.timedOut(), false);
    d.dispose();

    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const quiet = new AbortController();
      const e = deadline(quiet.signal, 5);
      e.dispose();
      mock.timers.tick(50);
      assert.equal(e.signal.aborted, false, 'a disposed deadline never fires');
      const live = deadline(quiet.signal, 5);
      mock.timers.tick(5);
      assert.equal(live.timedOut(), true);
    } finally {
      mock.timers.reset();
    }
  });

  it('without a parent: fires after its time, and a disposed one never does (a connector call that ended)', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const ended = deadline(null, 5);
      ended.dispose();
      mock.timers.tick(50);
      assert.equal(ended.signal.aborted, false);
      assert.equal(ended.timedOut(), false);
      const slow = deadline(null, 5);
      mock.timers.tick(4);
      assert.equal(slow.signal.aborted, false);
      mock.timers.tick(1);
      assert.equal(slow.timedOut(), true);
      assert.equal((slow.signal.reason as DOMException).name, 'TimeoutError');
      slow.dispose();
    } finally {
      mock.timers.reset();
    }
  });
});
