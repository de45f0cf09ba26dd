import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { filesKilledByV8 } from '../../scripts/lib/v8-abort.ts';

/** The output of a real run on Node 24.21.0 in which V8 aborted the file's process (nodejs/node#64500). */
const ABORTED = readFileSync('test/fixtures/v8-jit-page-abort.txt', 'utf8');
const FILE = 'test/integration/embedded-worker-store.test.ts';

describe('test files killed by the V8 JIT-page abort', () => {
  it('names the file whose process V8 aborted', () => {
    assert.deepEqual(filesKilledByV8(ABORTED), [FILE]);
  });

  it('refuses when a test failed on its own, even beside an abort', () => {
    const withAssertion = ABORTED.replace(
      `test at ${FILE}:1:1`,
      `test at ${FILE}:44:3\n✖ returns the same values (4.2ms)\n  AssertionError\n\ntest at ${FILE}:1:1`,
    );
    assert.equal(filesKilledByV8(withAssertion), null);
  });

  it('refuses a file-level failure without the abort (a crash of ours, a syntax error, process.exit)', () => {
    assert.equal(filesKilledByV8(ABORTED.replace(/# Check failed: jit_page[^\n]*/, '# Check failed: something else')), null);
  });

  it('refuses more dead files than aborts', () => {
    const two = ABORTED.replace(
      `test at ${FILE}:1:1`,
      `test at test/integration/other.test.ts:1:1\n✖ test/integration/other.test.ts (1ms)\n  'test failed'\n\ntest at ${FILE}:1:1`,
    );
    assert.equal(filesKilledByV8(two), null);
  });

  it('has nothing to run again when nothing failed', () => {
    assert.equal(filesKilledByV8('ℹ pass 3\nℹ fail 0\n'), null);
  });
});
