import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allCurrencyCodes, type CurrencyCode, isCurrencyCode, minorUnitDigits } from '../../src/lib/currencies.ts';

describe('ISO 4217 table', () => {
  it('has the minor units of product.md and of known currencies', () => {
    const expected: Record<string, number> = {
      IDR: 2,
      PHP: 2,
      USD: 2,
      EUR: 2,
      JPY: 0,
      VND: 0,
      KRW: 0,
      CLP: 0,
      KWD: 3,
      BHD: 3,
      TND: 3,
      CLF: 4,
      UYW: 4,
    };
    for (const [code, digits] of Object.entries(expected)) assert.equal(minorUnitDigits(code as CurrencyCode), digits, code);
  });
  it('holds only unique, upper-case three-letter codes', () => {
    const codes = allCurrencyCodes();
    assert.ok(codes.length > 150, `only ${codes.length} codes`);
    assert.equal(new Set(codes).size, codes.length);
    for (const code of codes) assert.match(code, /^[A-Z]{3}$/);
  });
  it('refuses unknown, lower-case, withdrawn and non-money codes', () => {
    for (const code of ['usd', 'XXX', 'XAU', 'XTS', 'HRK', 'ABC', '']) assert.equal(isCurrencyCode(code), false, code);
  });
});
