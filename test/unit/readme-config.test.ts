import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// The README's configuration table must name every variable config.ts reads (it drifted once).
describe('README configuration table', () => {
  it('documents every environment variable the service reads', () => {
    const config = readFileSync('src/config.ts', 'utf8');
    const readme = readFileSync('README.md', 'utf8');
    const names = new Set(
      [...config.matchAll(/\b(?:env\[|int\(env, |list\(env, |nonEmpty\(env, |oneOf\(env, )'([A-Z][A-Z0-9_]+)'/g)].map(
        (m) => m[1] as string,
      ),
    );
    assert.ok(names.size > 20, `found only ${names.size} variables: the pattern no longer matches config.ts`);
    const missing = [...names].filter((name) => !readme.includes(`\`${name}\``));
    assert.deepEqual(missing, []);
  });
});
