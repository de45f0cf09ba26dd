import { type CurrencyCode, isCurrencyCode, minorUnitDigits } from '../../lib/currencies.ts';
import type { FieldIssue } from '../../lib/error-catalogue.ts';
import { MAX_AMOUNT_MINOR, formatMajorAmount, parseMajorAmount } from '../../lib/money.ts';

/**
 * The exact-money rules of client input, shared by every place that takes an amount: the create
 * body (the JSON number's source text) and query strings such as `GET /payment_method?amount=`
 * (text already). One function each, so a too-precise amount is refused with the same issue code
 * and message wherever it is sent.
 */
export type InputResult<T> = { ok: true; value: T } | { ok: false; issue: FieldIssue };

const AMOUNT_MESSAGES: Record<string, string> = {
  amount_not_a_number: 'must be a decimal number',
  amount_not_positive: 'must be greater than zero',
};

/** An ISO 4217 alpha-3 code in upper case, from the vendored table. */
export function currencyInput(text: string, field: string): InputResult<CurrencyCode> {
  if (!/^[A-Z]{3}$/.test(text)) {
    return {
      ok: false,
      issue: { field, issue: 'invalid_format', message: `${field} must be an ISO 4217 code in upper case, e.g. IDR` },
    };
  }
  if (!isCurrencyCode(text)) {
    return { ok: false, issue: { field, issue: 'unknown_currency', message: `${text} is not an active ISO 4217 currency` } };
  }
  return { ok: true, value: text };
}

/** The exact decimal text of an amount in major units → minor units of `currency`. */
export function amountInput(text: string, currency: CurrencyCode, field: string): InputResult<bigint> {
  const parsed = parseMajorAmount(text, currency);
  if (parsed.ok) return { ok: true, value: parsed.minor };
  switch (parsed.issue) {
    case 'amount_too_precise':
      return {
        ok: false,
        issue: {
          field,
          issue: parsed.issue,
          message: `${currency} amounts have at most ${minorUnitDigits(currency)} fractional digits`,
        },
      };
    case 'amount_too_large':
      return {
        ok: false,
        issue: {
          field,
          issue: parsed.issue,
          message: `${field} must be at most ${formatMajorAmount(MAX_AMOUNT_MINOR, currency)} ${currency}`,
        },
      };
    default:
      return {
        ok: false,
        issue: { field, issue: parsed.issue, message: `${field} ${AMOUNT_MESSAGES[parsed.issue] ?? 'is invalid'}` },
      };
  }
}
