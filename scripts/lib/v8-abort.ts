/**
 * A known V8 defect (nodejs/node#64500, open at the time of writing): a process that instantiates
 * and frees PGlite's WebAssembly several times can abort in V8's JIT-page bookkeeping ("Check failed:
 * jit_page_->allocations_.erase(addr) == 1"). Seen here on Node 24 (one file in about ten runs of
 * test/integration/embedded-worker-store.test.ts), never on Node 20. The abort kills the test file's
 * process, which node:test reports as a failure of the file itself ("test at FILE:1:1 … 'test
 * failed'").
 *
 * scripts/run-tests.ts runs such files once more, and only when every failure of the run is a
 * file-level one and the output shows at least as many of these aborts as there are such files; a
 * second abort, or any other failure, fails the run. docs/reliability.md says so.
 */
const V8_JIT_PAGE_ABORT = /# Fatal error in [^\n]*\n# Check failed: jit_page/g;

/** The test files to run once more, or null when the failures are not all explained by the abort. */
export function filesKilledByV8(output: string): string[] | null {
  const at = output.lastIndexOf('failing tests:');
  if (at < 0) return null;
  const failures = [...output.slice(at).matchAll(/^test at (\S+?):(\d+):(\d+)$/gm)];
  const fileLevel = failures.filter((m) => m[2] === '1' && m[3] === '1').map((m) => m[1] as string);
  const aborts = (output.match(V8_JIT_PAGE_ABORT) ?? []).length;
  if (failures.length === 0 || fileLevel.length !== failures.length || aborts < fileLevel.length) return null;
  return [...new Set(fileLevel)];
}
