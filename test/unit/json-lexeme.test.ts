import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { topLevelNumberLexemes } from '../../src/lib/json-lexeme.ts';

const amount = (json: string) => topLevelNumberLexemes(json, new Set(['amount'])).get('amount');

describe('topLevelNumberLexemes', () => {
  it('keeps the exact text of the number', () => {
    assert.equal(amount('{"amount": 10.10, "currency": "USD"}'), '10.10');
    assert.equal(amount('{"currency":"USD","amount":1e-7}'), '1e-7');
    assert.equal(amount('{ "amount" :\n 10.005 }'), '10.005');
  });
  it('decodes escaped keys like JSON.parse', () => {
    assert.equal(amount('{"\\u0061mount": 12.50}'), '12.50');
  });
  it('ignores nested and string occurrences', () => {
    assert.equal(amount('{"metadata": {"amount": 5}, "description": "amount: 7", "amount": 9.90}'), '9.90');
    assert.equal(amount('{"metadata": {"amount": 5}}'), undefined);
    assert.equal(amount('{"list": [{"amount": 1}], "x": "\\"amount\\": 3"}'), undefined);
  });
  it('takes the last duplicate, as JSON.parse does', () => {
    assert.equal(amount('{"amount": 1.00, "amount": 2.50}'), '2.50');
  });
  it('does not capture non-number values', () => {
    assert.equal(amount('{"amount": "10.00"}'), undefined);
    assert.equal(amount('{"amount": null}'), undefined);
  });
});
