import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs the test files under the given folders (default: test/unit, test/contract,
 * test/integration and test/sdk) with
 * node:test. Node 20's runner does not expand globs, so the files are listed here.
 * TEST_STORE=postgres runs the store-backed tests on PostgreSQL instead of the embedded store.
 */
function find(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
const roots = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-'));
const files = (roots.length > 0 ? roots : ['test/unit', 'test/contract', 'test/integration', 'test/sdk'])
  .flatMap((root) => (root.endsWith('.ts') ? [root] : find(root)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...flags, ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
