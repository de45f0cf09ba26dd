/**
 * ISO 4217 list one: active alphabetic codes and their minor units.
 *
 * Vendored so that money rules never depend on the host's ICU data (Intl's minor units differ
 * from ISO for several currencies, e.g. IDR). Codes without a minor unit in the standard (precious
 * metals, XDR, XTS, XXX, the bond-market units) are left out because they cannot be paid with.
 * Withdrawn codes (HRK, SLL, ZWL, ANG after the XCG change-over, …) are left out as well.
 * Tested in test/unit/currencies.test.ts against known values.
 */
const MINOR_UNITS_BY_DIGITS: Record<0 | 2 | 3 | 4, string> = {
  0: 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF',
  2: [
    'AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD',
    'CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL',
    'GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR',
    'LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD',
    'PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC',
    'SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW',
    'ZWG',
  ].join(' '),
  3: 'BHD IQD JOD KWD LYD OMR TND',
  4: 'CLF UYW',
};

export type CurrencyCode = string & { readonly __brand: 'CurrencyCode' };

const minorUnitsByCode = new Map<string, number>();
for (const [digits, codes] of Object.entries(MINOR_UNITS_BY_DIGITS)) {
  for (const code of codes.split(' ')) minorUnitsByCode.set(code, Number(digits));
}

export function isCurrencyCode(value: string): value is CurrencyCode {
  return minorUnitsByCode.has(value);
}

/** Number of minor-unit digits of an ISO 4217 currency (2 for IDR and USD, 0 for JPY). */
export function minorUnitDigits(currency: CurrencyCode): number {
  const digits = minorUnitsByCode.get(currency);
  if (digits === undefined) throw new Error(`unknown currency ${currency}`);
  return digits;
}

export function allCurrencyCodes(): CurrencyCode[] {
  return [...minorUnitsByCode.keys()].sort() as CurrencyCode[];
}
