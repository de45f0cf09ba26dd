import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { SDK_VERSION } from '../../sdk/src/index.ts';
import { createTestApp, type TestApp } from '../harness/test-app.ts';

/**
 * `@tributary/node` as it would be published: compiled by its own build (sdk/tsconfig.build.json)
 * and loaded by plain Node (no tsx, no repository code), then used against the real server.
 */

const SDK_DIR = resolve('sdk');
const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  type: string;
  types: string;
  exports: Record<string, { types: string; import: string }>;
  dependencies?: Record<string, string>;
  files: string[];
};

describe('the @tributary/node package', () => {
  let outDir: string;
  let t: TestApp;

  before(async () => {
    outDir = mkdtempSync(join(tmpdir(), 'tributary-sdk-'));
    const build = spawnSync(
      process.execPath,
      [resolve('node_modules/typescript/bin/tsc'), '-p', join(SDK_DIR, 'tsconfig.build.json'), '--outDir', join(outDir, 'dist')],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(build.status, 0, `tsc failed:\n${build.stdout}${build.stderr}`);
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  it('has the published shape: ESM with types, no runtime dependencies, a version the code reports', () => {
    assert.equal(manifest.name, '@tributary/node');
    assert.equal(manifest.version, SDK_VERSION);
    assert.equal(manifest.type, 'module');
    assert.equal(manifest.dependencies, undefined, 'zero runtime dependencies: global fetch and node:crypto');
    const root = manifest.exports['.'];
    assert.ok(root !== undefined);
    assert.equal(manifest.types, root.types);
    for (const file of [root.import, root.types]) {
      assert.ok(file.startsWith('./dist/') && manifest.files.includes('dist'), file);
      assert.ok(existsSync(join(outDir, file)), `the build produces ${file}`);
    }
    const declarations = readFileSync(join(outDir, root.types), 'utf8');
    assert.match(declarations, /export \{ Tributary \}/);
    // Imports in the emitted JavaScript end in .js (rewritten from .ts), or Node could not load them.
    assert.doesNotMatch(readFileSync(join(outDir, root.import), 'utf8'), /from '[^']+\.ts'/);
  });

  it('plain Node loads the build and calls the server with it', async () => {
    const entry = join(outDir, manifest.exports['.']!.import);
    const script = `
      import { Tributary, InvalidRequestError, webhooks } from ${JSON.stringify(entry)};
      const client = new Tributary(process.env.KEY, { baseUrl: process.env.BASE_URL });
      const p = await client.payments.create({ amount: 150000, currency: 'IDR', reference_no: 'pkg-' + Date.now() });
      let code;
      try { await client.payments.create({ amount: -1, currency: 'IDR', reference_no: 'x' }); } catch (e) { code = e instanceof InvalidRequestError && e.code; }
      console.log(JSON.stringify({ id: p.id, status: p.status, code, verify: typeof webhooks.verify }));
    `;
    // Asynchronously: the server answering it runs in this process.
    const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, KEY: t.a.sandboxKey, BASE_URL: t.baseUrl },
    });
    const out = JSON.parse(run.stdout) as { id: string; status: string; code: string; verify: string };
    assert.match(out.id, /^pay_/);
    assert.equal(out.status, 'pending');
    assert.equal(out.code, 'invalid_request');
    assert.equal(out.verify, 'function');
  });

  it('installs from the repository folder with `npm i ./sdk`: no tarball, no build, types included', async () => {
    // The committed sdk/dist is what a folder install links to (scripts/gen-sdk-dist.ts keeps it current).
    const project = mkdtempSync(join(tmpdir(), 'tributary-sdk-consumer-'));
    try {
      const npm = (args: string[]) =>
        promisify(execFile)('npm', args, { cwd: project, encoding: 'utf8', timeout: 120_000, env: { ...process.env } });
      await npm(['init', '-y']);
      await npm(['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', SDK_DIR]);
      const installed = JSON.parse(readFileSync(join(project, 'node_modules', '@tributary', 'node', 'package.json'), 'utf8')) as {
        version: string;
      };
      assert.equal(installed.version, SDK_VERSION);
      assert.ok(existsSync(join(project, 'node_modules', '@tributary', 'node', 'dist', 'index.d.ts')), 'types ship with it');
      const script = `
        import { Tributary } from '@tributary/node';
        const client = new Tributary(process.env.KEY, { baseUrl: process.env.BASE_URL });
        const p = await client.payments.create({ amount: 150000, currency: 'IDR', reference_no: 'folder-' + Date.now() });
        console.log(JSON.stringify({ id: p.id, status: p.status }));
      `;
      const run = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, KEY: t.a.sandboxKey, BASE_URL: t.baseUrl },
      });
      const out = JSON.parse(run.stdout) as { id: string; status: string };
      assert.match(out.id, /^pay_/);
      assert.equal(out.status, 'pending');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
