import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { allCurrencyCodes, type CurrencyCode, minorUnitDigits } from '../../src/lib/currencies.ts';
import { formatMajorAmount, MAX_AMOUNT_MINOR, parseMajorAmount, toMajorNumber } from '../../src/lib/money.ts';

const c = (code: string) => code as CurrencyCode;

describe('parseMajorAmount', () => {
  const cases: [string, string, bigint | string][] = [
    ['10.1', 'USD', 1010n],
    ['10.10', 'USD', 1010n],
    ['10.100000', 'USD', 1010n],
    ['150000.00', 'IDR', 15_000_000n],
    ['150000', 'IDR', 15_000_000n],
    ['1e2', 'USD', 10_000n],
    ['1.5E1', 'USD', 1_500n],
    ['12.5e-1', 'USD', 125n],
    ['5000', 'VND', 5_000n],
    ['5000.0', 'JPY', 5_000n],
    ['0.001', 'KWD', 1n],
    ['10.005', 'USD', 'amount_too_precise'],
    ['1e-7', 'USD', 'amount_too_precise'],
    ['100.5', 'JPY', 'amount_too_precise'],
    ['0.0001', 'KWD', 'amount_too_precise'],
    ['0', 'USD', 'amount_not_positive'],
    ['0.00', 'USD', 'amount_not_positive'],
    ['-1', 'USD', 'amount_not_positive'],
    ['-0.5', 'USD', 'amount_not_positive'],
    ['1e400', 'USD', 'amount_too_large'],
    ['1e-400', 'USD', 'amount_too_precise'],
    ['0e400', 'USD', 'amount_not_positive'],
    ['10000000000000', 'USD', 'amount_too_large'], // 1e13 USD = 1e15 minor > max
    ['9999999999999.99', 'USD', 999_999_999_999_999n],
    ['99999999999999.9', 'USD', 'amount_too_large'],
    ['abc', 'USD', 'amount_not_a_number'],
    ['01', 'USD', 'amount_not_a_number'],
    ['1.', 'USD', 'amount_not_a_number'],
    ['.5', 'USD', 'amount_not_a_number'],
  ];
  for (const [text, currency, expected] of cases) {
    it(`${text} ${currency} → ${String(expected)}`, () => {
      const parsed = parseMajorAmount(text, c(currency));
      if (typeof expected === 'bigint') assert.deepEqual(parsed, { ok: true, minor: expected });
      else assert.deepEqual(parsed, { ok: false, issue: expected });
    });
  }
});

describe('formatMajorAmount and toMajorNumber', () => {
  it('renders minor units as the shortest exact decimal', () => {
    assert.equal(formatMajorAmount(1010n, c('USD')), '10.1');
    assert.equal(formatMajorAmount(1000n, c('USD')), '10');
    assert.equal(formatMajorAmount(5n, c('USD')), '0.05');
    assert.equal(formatMajorAmount(5000n, c('VND')), '5000');
    assert.equal(formatMajorAmount(1n, c('KWD')), '0.001');
    assert.equal(formatMajorAmount(-250n, c('USD')), '-2.5');
    assert.equal(toMajorNumber(15_000_000n, c('IDR')), 150000);
    assert.equal(JSON.stringify(toMajorNumber(999_999_999_999_999n, c('USD'))), '9999999999999.99');
  });
});

const currencyArb = fc.constantFrom(...allCurrencyCodes());
const minorArb = fc.bigInt({ min: 1n, max: MAX_AMOUNT_MINOR });

describe('money round trip (property)', () => {
  it('any valid amount survives minor → JSON number → exact text → minor', () => {
    fc.assert(
      fc.property(currencyArb, minorArb, (currency, minor) => {
        // What a client sends: the JSON text of the number in major units.
        const wire = JSON.stringify(toMajorNumber(minor, currency));
        const parsed = parseMajorAmount(wire, currency);
        assert.deepEqual(parsed, { ok: true, minor });
        // And what we render back is the same JSON number.
        assert.equal(JSON.stringify(toMajorNumber(parsed.ok ? parsed.minor : 0n, currency)), wire);
      }),
      { numRuns: 2000 },
    );
  });

  it('trailing zeros up to any length name the same amount', () => {
    fc.assert(
      fc.property(currencyArb, minorArb, fc.nat({ max: 6 }), (currency, minor, zeros) => {
        const text = formatMajorAmount(minor, currency);
        const padded = text.includes('.') ? text + '0'.repeat(zeros) : `${text}.${'0'.repeat(zeros + 1)}`;
        assert.deepEqual(parseMajorAmount(padded, currency), { ok: true, minor });
      }),
    );
  });

  it('one more fractional digit than the currency allows is always refused', () => {
    fc.assert(
      fc.property(currencyArb, minorArb, fc.integer({ min: 1, max: 9 }), (currency, minor, digit) => {
        const digits = minorUnitDigits(currency);
        const whole = formatMajorAmount(minor, currency);
        const [intPart, frac = ''] = whole.split('.');
        const text = `${intPart}.${frac.padEnd(digits, '0')}${digit}`;
        const parsed = parseMajorAmount(text, currency);
        assert.equal(parsed.ok, false);
      }),
    );
  });
});
