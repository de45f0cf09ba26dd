import type { CurrencyCode } from '../../lib/currencies.ts';
import { assert } from '../../lib/assert.ts';
import { type AmountSeparators, formatAmountWith } from '../../lib/money-display.ts';
import { html, type SafeHtml } from './html.ts';

/**
 * The languages of the payer pages (docs/decisions/0022-payer-page-languages.md). Everything a
 * page needs to speak a language lives here or in the page's own catalogue: choosing the locale
 * of a request, the `lang` and `Content-Language` values, amounts and dates, and the switch.
 *
 * To add a language: add its tag to `LOCALES`, then let the compiler list every `Record<Locale, …>`
 * that lacks it (the tables below and each page's message catalogue).
 */
export const LOCALES = ['en', 'id'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language's name in itself: the switch shows "Bahasa Indonesia" also on the English page. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = { en: 'English', id: 'Bahasa Indonesia' };

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** The BCP 47 tag for `<html lang>`, `Content-Language` and the switch links' `lang`/`hreflang`. */
export function htmlLang(locale: Locale): string {
  return locale;
}

/**
 * Primary language subtags we answer in. `in` is the withdrawn ISO 639 code for Indonesian that
 * older Java and Android stacks still send (`in-ID`); Malay (`ms`) is a different language.
 */
const PRIMARY_SUBTAG: Readonly<Record<string, Locale>> = { en: 'en', id: 'id', in: 'id' };

/** Enough for any real browser; a longer header is read up to here (and never fails). */
const MAX_LANGUAGE_RANGES = 32;
const LANGUAGE_RANGE = /^(\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

interface Preference {
  quality: number;
  /** Position in the header: among equal qualities the earlier range wins. */
  position: number;
}

/**
 * How much the header wants `locale`: the best quality among ranges naming the language (`id`,
 * `id-ID`), else the wildcard's, else nothing. A named `q=0` refuses the language even when `*`
 * would accept it (RFC 9110 §12.5.4).
 */
function preferenceFor(
  locale: Locale,
  ranges: readonly { tag: string; quality: number; position: number }[],
): Preference | undefined {
  let named: Preference | undefined;
  let wildcard: Preference | undefined;
  for (const r of ranges) {
    if (r.tag === '*') {
      if (wildcard === undefined) wildcard = { quality: r.quality, position: r.position };
      continue;
    }
    if (PRIMARY_SUBTAG[r.tag.split('-')[0] ?? ''] !== locale) continue;
    if (named === undefined || r.quality > named.quality) named = { quality: r.quality, position: r.position };
  }
  return named ?? wildcard;
}

function parseAcceptLanguage(header: string): { tag: string; quality: number; position: number }[] {
  const ranges: { tag: string; quality: number; position: number }[] = [];
  for (const item of header.split(',').slice(0, MAX_LANGUAGE_RANGES)) {
    const [rawTag = '', ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    if (!LANGUAGE_RANGE.test(rawTag)) continue;
    let quality = 1;
    let valid = true;
    for (const param of params) {
      const q = QUALITY.exec(param.replace(/\s+/g, ''));
      // A malformed weight makes the whole range meaningless: skip it rather than guess.
      if (q === null) valid = false;
      else quality = Number(q[1]);
    }
    if (valid) ranges.push({ tag: rawTag, quality, position: ranges.length });
  }
  return ranges;
}

function localeFromQuery(query: unknown): Locale | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  const raw: unknown = (query as Record<string, unknown>)['lang'];
  // `?lang=id&lang=en` arrives as an array: the first value we know wins.
  const values: unknown[] = Array.isArray(raw) ? raw : [raw];
  for (const value of values) {
    const candidate = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
    if (isLocale(candidate)) return candidate;
  }
  return undefined;
}

/**
 * The locale of one request: an explicit `?lang=en|id` (the switch's links) wins; otherwise the
 * best-weighted language of `Accept-Language` we speak, ties going to the earlier range; otherwise
 * English. Total over any input: unknown values, garbage and absent headers give English.
 */
export function chooseLocale(request: { query?: unknown; acceptLanguage?: string | readonly string[] | undefined }): Locale {
  const explicit = localeFromQuery(request.query);
  if (explicit !== undefined) return explicit;
  const header = typeof request.acceptLanguage === 'string' ? request.acceptLanguage : (request.acceptLanguage ?? []).join(',');
  const ranges = parseAcceptLanguage(header);
  let best: { locale: Locale; preference: Preference } | undefined;
  for (const locale of LOCALES) {
    const preference = preferenceFor(locale, ranges);
    if (preference === undefined || preference.quality <= 0) continue;
    const better =
      best === undefined ||
      preference.quality > best.preference.quality ||
      (preference.quality === best.preference.quality && preference.position < best.preference.position);
    if (better) best = { locale, preference };
  }
  return best?.locale ?? DEFAULT_LOCALE;
}

/** Headers of a page whose language was chosen by `chooseLocale` (caches must key on the header). */
export function localeHeaders(locale: Locale): Readonly<Record<string, string>> {
  return { 'Content-Language': htmlLang(locale), Vary: 'Accept-Language' };
}

const SEPARATORS: Readonly<Record<Locale, AmountSeparators>> = {
  en: { group: ',', decimal: '.' },
  id: { group: '.', decimal: ',' },
};

/**
 * An amount for people in the page's language, exact from the integer minor units (never a
 * float): en "IDR 150,000.00", id "IDR 150.000,00"; "VND 1,234,567" / "VND 1.234.567".
 *
 * Both languages keep the ISO currency CODE, not a symbol such as "Rp": the separators follow the
 * reader's language, and the code is the one fixed point that tells a reader which convention the
 * number uses when a payer switches language or forwards the link; it also needs no symbol table
 * for the other currencies (USD, VND, KWD …) whose symbols are ambiguous ("$") or absent.
 */
export function formatAmount(minor: bigint, currency: CurrencyCode, locale: Locale): string {
  return formatAmountWith(minor, currency, SEPARATORS[locale]);
}

const MONTHS: Readonly<Record<Locale, readonly string[]>> = {
  en: ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'],
  id: ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des'],
};

/**
 * A time in UTC, the same on every server whatever its time zone or ICU data (the page script
 * re-renders it in the payer's own zone): en "21 Nov 2026, 22:14 UTC", id "21 Nov 2026 pukul
 * 22.14 UTC" (Indonesian writes hours and minutes with a full stop).
 */
export function formatDateTime(date: Date, locale: Locale): string {
  assert(!Number.isNaN(date.getTime()), 'formatDateTime needs a valid date');
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${date.getUTCDate()} ${MONTHS[locale][date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  const hours = pad(date.getUTCHours());
  const minutes = pad(date.getUTCMinutes());
  return locale === 'id' ? `${day} pukul ${hours}.${minutes} UTC` : `${day}, ${hours}:${minutes} UTC`;
}

const SWITCH_LABEL: Readonly<Record<Locale, string>> = { en: 'Language', id: 'Bahasa' };

/** Rules for `localeSwitch`'s markup, to put into a page's own (hashed) stylesheet. */
export const LOCALE_SWITCH_STYLE =
  '.locale-switch{display:flex;justify-content:flex-end;gap:1rem;margin:0 0 .75rem;font-size:.9rem}' +
  '.locale-switch a{color:var(--accent,#2546d0)}' +
  '.locale-switch a[aria-current]{color:inherit;font-weight:600;text-decoration:none}';

/**
 * The language switch: a labelled `<nav>` of one link per language, each named in its own
 * language (with `lang`, so a screen reader pronounces it right) and the current one marked with
 * `aria-current`. `hrefFor` gives the page's own URL with `?lang=` set; links, not a form, so it
 * works without JavaScript and the choice survives reloads (docs/decisions/0022).
 */
export function localeSwitch(current: Locale, hrefFor: (locale: Locale) => string): SafeHtml {
  const links = LOCALES.map(
    (locale) =>
      html`<a
        href="${hrefFor(locale)}"
        lang="${htmlLang(locale)}"
        hreflang="${htmlLang(locale)}"
        ${locale === current ? html` aria-current="page"` : ''}
        >${LOCALE_NAMES[locale]}</a
      >`,
  );
  return html`<nav class="locale-switch" aria-label="${SWITCH_LABEL[current]}">${links}</nav>`;
}
