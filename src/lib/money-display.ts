import { type CurrencyCode, minorUnitDigits } from './currencies.ts';

/**
 * Amounts for people (the payer page): the currency code, thousands separators and exactly the
 * currency's minor-unit digits, from the integer, never through a float: 15000000n IDR →
 * "IDR 150,000.00", 50000n VND → "VND 50,000". The code rather than a symbol and the English
 * separators are deliberate: the page does not know the payer's locale, and "Rp" or "₱" with
 * locale-dependent separators is easy to misread as another amount.
 */
export function formatHumanAmount(minor: bigint, currency: CurrencyCode): string {
  const digits = minorUnitDigits(currency);
  const negative = minor < 0n;
  const raw = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const intPart = raw.slice(0, raw.length - digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fracPart = raw.slice(raw.length - digits);
  return `${currency} ${negative ? '-' : ''}${intPart}${digits > 0 ? `.${fracPart}` : ''}`;
}
