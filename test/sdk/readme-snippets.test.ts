import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

/**
 * The TypeScript a reader copies from the READMEs must compile under `strict` (and the repository's
 * stricter flags): each README's ```ts blocks, in order, as one ES module (later blocks use names the
 * first declares), with `@tributary/node` mapped to the SDK's source. The few names a snippet takes
 * from the reader's own application (an Express `app`, the raw body) are declared with plain types.
 */
const READMES = ['sdk/README.md', 'README.md'];

const AMBIENT = `
interface Req { body: Buffer; headers: Record<string, string | string[] | undefined> }
interface Res { status(code: number): Res; end(): void }
declare const express: { raw(options: { type: string }): unknown };
declare const app: { post(path: string, middleware: unknown, handler: (req: Req, res: Res) => unknown): void };
declare function fulfil(id: string): void;
declare const rawBody: string;
declare const req: Req;
`;

export function snippetModule(markdown: string): string {
  const blocks = [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
  const lines = blocks.join('\n').split('\n');
  // Imports go first, as a module needs them; the rest keeps its order.
  return [...lines.filter((l) => l.startsWith('import ')), ...lines.filter((l) => !l.startsWith('import ')), 'export {};'].join(
    '\n',
  );
}

describe('README TypeScript snippets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tributary-snippets-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('type-check under strict mode', () => {
    const files = READMES.map((readme, i) => {
      const code = snippetModule(readFileSync(readme, 'utf8'));
      assert.ok(code.includes('@tributary/node'), `${readme} has TypeScript snippets`);
      const file = `snippets-${i}.ts`;
      writeFileSync(join(dir, file), `// from ${readme}\n${code}\n`);
      return file;
    });
    writeFileSync(join(dir, 'ambient.d.ts'), AMBIENT);
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2023'],
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
          types: ['node'],
          typeRoots: [resolve('node_modules/@types')],
          paths: { '@tributary/node': [resolve('sdk/src/index.ts')] },
        },
        files: ['ambient.d.ts', ...files],
      }),
    );
    const tsc = spawnSync(process.execPath, [resolve('node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(tsc.status, 0, `tsc refused a README snippet:\n${tsc.stdout}${tsc.stderr}`);
  });

  it('refuses what a reader stumbled on: reading instructions without checking for null', () => {
    writeFileSync(
      join(dir, 'stumble.ts'),
      "import { Tributary } from '@tributary/node';\nconst t = new Tributary('sk_test_x');\nconst p = await t.payments.create({ amount: 1, currency: 'IDR', reference_no: 'r' });\nconsole.log(p.instructions.type);\nexport {};\n",
    );
    const config = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { files: string[] };
    writeFileSync(join(dir, 'tsconfig.stumble.json'), JSON.stringify({ ...config, files: ['ambient.d.ts', 'stumble.ts'] }));
    const tsc = spawnSync(
      process.execPath,
      [resolve('node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.stumble.json')],
      {
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.notEqual(tsc.status, 0);
    assert.match(tsc.stdout, /TS18047: 'p\.instructions' is possibly 'null'/);
  });
});
