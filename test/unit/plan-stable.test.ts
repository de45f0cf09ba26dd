import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPlanStable, planStable } from '../../src/db/plan-stable.ts';
import { operationOf } from '../../src/db/traced-store.ts';

describe('the plan-stable mark (decision 0027)', () => {
  it('marks a text, and only a marked text reads as plan-stable', () => {
    const text = 'SELECT * FROM payments WHERE id = $1';
    assert.equal(isPlanStable(planStable(text)), true);
    assert.equal(isPlanStable(text), false);
    assert.equal(isPlanStable(` ${planStable(text)}`), false, 'the mark must start the text');
    assert.ok(planStable(text).endsWith(text), 'the statement itself is unchanged');
  });

  it("does not change a span's operation name: the mark is a comment, not the statement", () => {
    assert.equal(operationOf(planStable('WITH k AS (SELECT 1) SELECT 1')), 'WITH');
    assert.equal(operationOf(planStable('insert into t values ($1)')), 'INSERT');
    assert.equal(operationOf('/* a */ /* b */ UPDATE t SET a = 1'), 'UPDATE');
    assert.equal(operationOf('/* unterminated'), 'unknown');
  });
});
