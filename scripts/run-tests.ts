import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesKilledByV8 } from './lib/v8-abort.ts';

/**
 * Runs the test files under the given folders (default: test/unit, test/contract,
 * test/integration and test/sdk) with
 * node:test. Node 20's runner does not expand globs, so the files are listed here.
 * TEST_STORE=postgres runs the store-backed tests on PostgreSQL instead of the embedded store.
 *
 * Every answer a test receives from the server is checked against /openapi.json
 * (test/harness/response-contract.ts); each test process writes its counts to this run's
 * directory, and the sum is printed at the end and kept in test-output/contract-<store>.json.
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
const store = process.env['TEST_STORE'] ?? 'embedded';
const countsDir = join('test-output', 'contract', `run-${process.pid}`);
rmSync(countsDir, { recursive: true, force: true });
mkdirSync(countsDir, { recursive: true });
/**
 * Runs node:test over `testFiles`, streaming its output through and keeping it for the summary.
 */
async function runNodeTest(testFiles: string[]): Promise<{ status: number; output: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...flags, ...testFiles],
    { stdio: ['inherit', 'pipe', 'pipe'], env: { ...process.env, CONTRACT_COUNTS_DIR: countsDir } },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    output += chunk.toString();
  });
  const status = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return { status, output };
}

let result = await runNodeTest(files);
if (result.status !== 0) {
  const killed = filesKilledByV8(result.output);
  if (killed !== null) {
    console.log(
      `\n# ${killed.length} test file(s) killed by a V8 abort (nodejs/node#64500), run once more: ${killed.join(', ')}`,
    );
    result = await runNodeTest(killed);
  }
}

interface Counts {
  file: string;
  validated: number;
  undocumented: number;
  byOperation: Record<string, number>;
}
const counts = readdirSync(countsDir).map((name) => JSON.parse(readFileSync(join(countsDir, name), 'utf8')) as Counts);
rmSync(countsDir, { recursive: true, force: true });
const byOperation: Record<string, number> = {};
for (const c of counts) for (const [op, n] of Object.entries(c.byOperation)) byOperation[op] = (byOperation[op] ?? 0) + n;
const summary = {
  store,
  files: files.length,
  processes_reporting: counts.length,
  validated: counts.reduce((n, c) => n + c.validated, 0),
  undocumented: counts.reduce((n, c) => n + c.undocumented, 0),
  operations: Object.keys(byOperation).filter((op) => !op.startsWith('(no operation)')).length,
  by_operation: Object.fromEntries(Object.entries(byOperation).sort()),
};
writeFileSync(join('test-output', `contract-${store}.json`), `${JSON.stringify(summary, null, 2)}\n`);
console.log(
  `\n# contract (${store}): ${summary.validated} answers validated against /openapi.json, ${summary.undocumented} undocumented, ` +
    `${summary.operations} operations exercised (test-output/contract-${store}.json)`,
);
process.exit(summary.undocumented > 0 ? 1 : result.status);
