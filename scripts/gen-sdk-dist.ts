import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

/**
 * Builds the Node SDK's `sdk/dist` (ESM + `.d.ts`), which is committed so that `npm i ./sdk` (or a
 * `file:` dependency on the repository's `sdk/` folder) installs a package that works at once, with
 * no build step and no tarball (docs/sdks.md). `--check` exits 1 when the committed build differs
 * from a fresh one (CI runs it), so the two never drift.
 */
const SDK_DIR = resolve('sdk');
const DIST = join(SDK_DIR, 'dist');

function filesUnder(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return out;
}

const outDir = mkdtempSync(join(tmpdir(), 'tributary-sdk-dist-'));
try {
  const build = spawnSync(
    process.execPath,
    [resolve('node_modules/typescript/bin/tsc'), '-p', join(SDK_DIR, 'tsconfig.build.json'), '--outDir', outDir],
    { encoding: 'utf8', timeout: 180_000 },
  );
  if (build.status !== 0) {
    console.error(`tsc failed:\n${build.stdout}${build.stderr}`);
    process.exit(1);
  }
  if (process.argv.includes('--check')) {
    const fresh = filesUnder(outDir);
    let committed: Map<string, string>;
    try {
      committed = filesUnder(DIST);
    } catch {
      committed = new Map();
    }
    const differing = [...new Set([...fresh.keys(), ...committed.keys()])].filter((f) => fresh.get(f) !== committed.get(f));
    if (differing.length > 0) {
      console.error(`sdk/dist is out of date (${differing.slice(0, 5).join(', ')}): run npm run gen:docs`);
      process.exit(1);
    }
  } else {
    rmSync(DIST, { recursive: true, force: true });
    cpSync(outDir, DIST, { recursive: true });
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
