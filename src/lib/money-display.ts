import { type CurrencyCode, minorUnitDigits } from './currencies.ts';

/** The two marks that differ between locales: "150,000.00" (English) vs "150.000,00" (Indonesian). */
export interface AmountSeparators {
  group: string;
  decimal: string;
}

const ENGLISH_SEPARATORS: AmountSeparators = { group: ',', decimal: '.' };

/**
 * Amounts for people (the payer page): the currency code, thousands separators and exactly the
 * currency's minor-unit digits, from the integer, never through a float: 15000000n IDR →
 * "IDR 150,000.00", 50000n VND → "VND 50,000". The code rather than a symbol and the English
 * separators are deliberate: where the reader's locale is not known, "Rp" or "₱" with
 * locale-dependent separators is easy to misread as another amount. Pages that know the locale
 * use `formatAmount` of `http/pages/locale.ts`, which calls `formatAmountWith` below.
 */
export function formatHumanAmount(minor: bigint, currency: CurrencyCode): string {
  return formatAmountWith(minor, currency, ENGLISH_SEPARATORS);
}

/**
 * The one digit-grouping routine: string operations on the decimal digits of the bigint, so any
 * size is exact (no Number, no Intl, whose minor units differ from ISO 4217 for IDR). The sign
 * follows the code: "IDR -1,000.00".
 */
export function formatAmountWith(minor: bigint, currency: CurrencyCode, separators: AmountSeparators): string {
  const digits = minorUnitDigits(currency);
  const negative = minor < 0n;
  const raw = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const intPart = raw.slice(0, raw.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, separators.group);
  const fracPart = raw.slice(raw.length - digits);
  return `${currency} ${negative ? '-' : ''}${intPart}${digits > 0 ? `${separators.decimal}${fracPart}` : ''}`;
}
