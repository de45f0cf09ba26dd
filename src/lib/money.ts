import { type CurrencyCode, isCurrencyCode, minorUnitDigits } from './currencies.ts';

/**
 * Exact money. Internally an amount is a bigint of minor units; on the wire it is a JSON number in
 * major units. We never do arithmetic on the float: the amount is parsed from the exact decimal
 * text of the JSON number (see json-lexeme.ts) and rendered back from the integer.
 *
 * Every accepted amount has at most 15 significant digits (MAX_AMOUNT_MINOR), so the IEEE-754
 * double of its decimal text renders back to exactly that text: `Number(text)` and
 * `JSON.stringify` are exact for it.
 */
export const MAX_AMOUNT_MINOR = 999_999_999_999_999n;

export type AmountIssue = 'amount_not_a_number' | 'amount_not_positive' | 'amount_too_precise' | 'amount_too_large';

export type ParsedAmount = { ok: true; minor: bigint } | { ok: false; issue: AmountIssue };

const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Exponents beyond this cannot be a valid amount; refusing them early bounds the work. */
const MAX_EXPONENT_MAGNITUDE = 40;

/**
 * Parses the exact text of a JSON number as an amount of `currency`.
 * `10.1` and `10.10` are the same amount; `10.005` USD and `1e-7` are refused as too precise.
 */
export function parseMajorAmount(text: string, currency: CurrencyCode): ParsedAmount {
  const match = JSON_NUMBER.exec(text);
  if (match === null) return { ok: false, issue: 'amount_not_a_number' };
  const [, sign, intPart = '', fracPartRaw = '', expRaw] = match;
  const exponent = expRaw === undefined ? 0 : Number(expRaw);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT_MAGNITUDE) {
    // A huge exponent is either absurdly large or absurdly small; decide which without expanding it.
    const isZero = /^0*$/.test(intPart + fracPartRaw);
    if (isZero || sign === '-') return { ok: false, issue: 'amount_not_positive' };
    return { ok: false, issue: expRaw?.startsWith('-') ? 'amount_too_precise' : 'amount_too_large' };
  }
  // Value = digits × 10^(exponent - fracLength). Trailing zeros of the fraction carry no value.
  const fracPart = fracPartRaw.replace(/0+$/, '');
  let digits = (intPart + fracPart).replace(/^0+/, '');
  let scale = fracPart.length - exponent; // value = digits / 10^scale
  if (digits === '') return { ok: false, issue: 'amount_not_positive' };
  if (sign === '-') return { ok: false, issue: 'amount_not_positive' };
  // Normalise trailing zeros of the integer digits into the scale.
  while (scale > 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale -= 1;
  }
  const minorDigits = minorUnitDigits(currency);
  if (scale > minorDigits) return { ok: false, issue: 'amount_too_precise' };
  const shift = minorDigits - scale;
  if (digits.length + shift > 18) return { ok: false, issue: 'amount_too_large' };
  const minor = BigInt(digits) * 10n ** BigInt(shift);
  if (minor > MAX_AMOUNT_MINOR) return { ok: false, issue: 'amount_too_large' };
  return { ok: true, minor };
}

/** The exact decimal text of a minor-unit amount in major units, e.g. 1010n USD → "10.1". */
export function formatMajorAmount(minor: bigint, currency: CurrencyCode): string {
  const minorDigits = minorUnitDigits(currency);
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const raw = abs.toString().padStart(minorDigits + 1, '0');
  const intPart = raw.slice(0, raw.length - minorDigits);
  const fracPart = raw.slice(raw.length - minorDigits).replace(/0+$/, '');
  return `${negative ? '-' : ''}${intPart}${fracPart === '' ? '' : `.${fracPart}`}`;
}

/**
 * The JSON number for a minor-unit amount. Exact for every amount within MAX_AMOUNT_MINOR: the
 * double nearest to a decimal of at most 15 significant digits prints back as that decimal.
 */
export function toMajorNumber(minor: bigint, currency: CurrencyCode): number {
  return Number(formatMajorAmount(minor, currency));
}

/**
 * A provider's amount in a currency it named, which may not be one we know (a typo in a report):
 * major units when we know the currency, else the minor units as the provider sent them, since an
 * unknown currency cannot be scaled. For views of provider data only (reconciliation, exceptions).
 */
export function reportedMajorNumber(minor: bigint, currency: string): number {
  return isCurrencyCode(currency) ? toMajorNumber(minor, currency) : Number(minor);
}

/** The exact text of reportedMajorNumber (CSV exports). */
export function reportedMajorText(minor: bigint, currency: string): string {
  return isCurrencyCode(currency) ? formatMajorAmount(minor, currency) : minor.toString();
}
