import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  chooseLocale,
  formatAmount,
  formatDateTime,
  htmlLang,
  type Locale,
  LOCALES,
  localeHeaders,
  localeSwitch,
} from '../../src/http/pages/locale.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { MAX_AMOUNT_MINOR } from '../../src/lib/money.ts';
import { formatHumanAmount } from '../../src/lib/money-display.ts';

const c = (code: string) => code as CurrencyCode;
const fromHeader = (acceptLanguage: string | undefined) => chooseLocale({ acceptLanguage });

describe('chooseLocale', () => {
  it('follows Accept-Language as browsers send it', () => {
    assert.equal(fromHeader('id-ID,id;q=0.9,en;q=0.8'), 'id');
    assert.equal(fromHeader('id'), 'id');
    assert.equal(fromHeader('en-US,en;q=0.9,id;q=0.8'), 'en');
    assert.equal(fromHeader('ms,en'), 'en', 'Malay is not Indonesian');
    assert.equal(fromHeader('ms-MY,ms;q=0.9,id;q=0.8,en;q=0.7'), 'id', 'the best language we speak');
    assert.equal(fromHeader('fr-FR,fr;q=0.9'), 'en', 'none we speak: English');
    assert.equal(fromHeader('in-ID'), 'id', 'the withdrawn code older Android and Java stacks send');
    assert.equal(fromHeader('ID-id'), 'id', 'tags are case-insensitive');
  });

  it('weighs by q-value, not by position', () => {
    assert.equal(fromHeader('en;q=0.5,id'), 'id');
    assert.equal(fromHeader('en;q=0.1, id;q=0.2'), 'id');
    assert.equal(fromHeader('en-GB;q=0.3,id-ID;q=0.2,en;q=0.1'), 'en', 'the best range naming a language counts');
    assert.equal(fromHeader('id;q=1.000,en;q=0.999'), 'id');
    assert.equal(fromHeader('en ; q = 0.4 , id ; q = 0.6'), 'id', 'optional whitespace around ; and =');
  });

  it('breaks ties by position in the header', () => {
    assert.equal(fromHeader('en;q=0.5,id;q=0.5'), 'en');
    assert.equal(fromHeader('id;q=0.5,en;q=0.5'), 'id');
    assert.equal(fromHeader('id,en'), 'id');
  });

  it('treats q=0 as a refusal, also against a wildcard', () => {
    assert.equal(fromHeader('id;q=0'), 'en', 'nothing acceptable: English');
    assert.equal(fromHeader('*,en;q=0'), 'id', 'the wildcard accepts the language not refused');
    assert.equal(fromHeader('*;q=0.5,id;q=0'), 'en');
    assert.equal(fromHeader('id-ID;q=0,id;q=0.8,en;q=0.5'), 'id', 'the best range naming the language wins');
  });

  it('lets a wildcard accept any language and named ranges take precedence over it', () => {
    assert.equal(fromHeader('*'), 'en', 'both equal: the default');
    assert.equal(fromHeader('*;q=0.9,id;q=0.5'), 'en', 'the wildcard stands for English here');
    assert.equal(fromHeader('fr,*;q=0.1'), 'en');
  });

  it('never throws on garbage and answers English', () => {
    for (const header of [
      undefined,
      '',
      ',,,',
      ';q=1',
      'id;q=2',
      'id;q=abc',
      'id;q=0.1234',
      'id;level=1',
      '<script>',
      'i d',
      'x'.repeat(10_000),
      'id-'.repeat(1_000),
    ]) {
      assert.equal(fromHeader(header), 'en', JSON.stringify(header)?.slice(0, 40));
    }
    assert.equal(chooseLocale({ acceptLanguage: ['fr', 'id;q=0.5'] }), 'id', 'repeated headers are one list');
    assert.equal(chooseLocale({}), 'en');
    fc.assert(
      fc.property(fc.string(), fc.anything(), (acceptLanguage, query) =>
        LOCALES.includes(chooseLocale({ acceptLanguage, query })),
      ),
    );
  });

  it('reads only the first 32 ranges of an endless header', () => {
    assert.equal(fromHeader(`${'fr,'.repeat(32)}id`), 'en');
    assert.equal(fromHeader(`${'fr,'.repeat(31)}id`), 'id');
  });

  it('lets an explicit ?lang= win over the header, and ignores values it does not know', () => {
    assert.equal(chooseLocale({ query: { lang: 'en' }, acceptLanguage: 'id-ID,id;q=0.9' }), 'en');
    assert.equal(chooseLocale({ query: { lang: 'id' }, acceptLanguage: 'en-US' }), 'id');
    assert.equal(chooseLocale({ query: { lang: ' ID ' } }), 'id');
    assert.equal(chooseLocale({ query: { lang: 'fr' }, acceptLanguage: 'id' }), 'id', 'unknown: the header decides');
    assert.equal(chooseLocale({ query: { lang: ['fr', 'id', 'en'] } }), 'id', 'repeated: the first known value');
    for (const query of [null, 'lang=id', 42, { lang: 7 }, { lang: { id: true } }, { LANG: 'id' }]) {
      assert.equal(chooseLocale({ query, acceptLanguage: 'en' }), 'en', JSON.stringify(query));
    }
  });
});

describe('formatAmount', () => {
  it('formats English like the rest of the product', () => {
    assert.equal(formatAmount(15_000_000n, c('IDR'), 'en'), 'IDR 150,000.00');
    assert.equal(formatAmount(1_010n, c('USD'), 'en'), 'USD 10.10');
    assert.equal(formatAmount(5n, c('USD'), 'en'), 'USD 0.05');
    assert.equal(formatAmount(1_234_567n, c('VND'), 'en'), 'VND 1,234,567');
    assert.equal(formatAmount(999n, c('JPY'), 'en'), 'JPY 999');
    assert.equal(formatAmount(1_234_567n, c('KWD'), 'en'), 'KWD 1,234.567');
  });

  it('uses Indonesian separators and keeps the currency code', () => {
    assert.equal(formatAmount(15_000_000n, c('IDR'), 'id'), 'IDR 150.000,00');
    assert.equal(formatAmount(2_500_050n, c('IDR'), 'id'), 'IDR 25.000,50');
    assert.equal(formatAmount(1_010n, c('USD'), 'id'), 'USD 10,10');
    assert.equal(formatAmount(5n, c('USD'), 'id'), 'USD 0,05');
    assert.equal(formatAmount(1_234_567n, c('VND'), 'id'), 'VND 1.234.567');
    assert.equal(formatAmount(1_000n, c('JPY'), 'id'), 'JPY 1.000');
    assert.equal(formatAmount(1_234_567n, c('KWD'), 'id'), 'KWD 1.234,567');
  });

  it('formats zero and negative amounts', () => {
    assert.equal(formatAmount(0n, c('IDR'), 'en'), 'IDR 0.00');
    assert.equal(formatAmount(0n, c('IDR'), 'id'), 'IDR 0,00');
    assert.equal(formatAmount(0n, c('VND'), 'id'), 'VND 0');
    assert.equal(formatAmount(-15_000_000n, c('IDR'), 'en'), 'IDR -150,000.00');
    assert.equal(formatAmount(-15_000_000n, c('IDR'), 'id'), 'IDR -150.000,00');
    assert.equal(formatAmount(-5n, c('USD'), 'id'), 'USD -0,05');
    assert.equal(formatAmount(-1_000n, c('JPY'), 'id'), 'JPY -1.000');
  });

  it('is exact beyond 2^53, where a float would round', () => {
    const big = 2n ** 53n + 1n; // 9007199254740993: Number() would give …992
    assert.equal(formatAmount(big, c('IDR'), 'en'), 'IDR 90,071,992,547,409.93');
    assert.equal(formatAmount(big, c('IDR'), 'id'), 'IDR 90.071.992.547.409,93');
    assert.equal(formatAmount(big, c('JPY'), 'id'), 'JPY 9.007.199.254.740.993');
    assert.equal(formatAmount(10n ** 30n + 7n, c('KWD'), 'id'), 'KWD 1.000.000.000.000.000.000.000.000.000,007');
    assert.equal(formatAmount(MAX_AMOUNT_MINOR, c('IDR'), 'id'), 'IDR 9.999.999.999.999,99');
  });

  it('round-trips in both languages: removing code and grouping gives back the exact integer', () => {
    const digitsOf: Record<string, number> = { IDR: 2, USD: 2, VND: 0, JPY: 0, KWD: 3 };
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
        fc.constantFrom('IDR', 'USD', 'VND', 'JPY', 'KWD'),
        fc.constantFrom<Locale>(...LOCALES),
        (minor, code, locale) => {
          const text = formatAmount(minor, c(code), locale);
          const [group, decimal] = locale === 'id' ? ['.', ','] : [',', '.'];
          const digits = digitsOf[code] ?? 0;
          assert.ok(text.startsWith(`${code} `), text);
          const signed = text.slice(code.length + 1);
          const body = signed.replace(/^-/, '');
          const cut = digits > 0 ? body.length - digits - 1 : body.length;
          const intPart = body.slice(0, cut);
          const fracPart = body.slice(cut + 1);
          if (digits > 0) assert.equal(body.charAt(cut), decimal, `${text}: exactly the minor-unit digits after ${decimal}`);
          assert.match(fracPart, new RegExp(`^\\d{${digits}}$`), text);
          assert.match(intPart, new RegExp(`^\\d{1,3}(\\${group}\\d{3})*$`), `${text}: groups of three with ${group}`);
          const sign = signed.startsWith('-') ? '-' : '';
          const magnitude = BigInt(intPart.split(group).join('') + fracPart);
          assert.equal(sign === '-' ? -magnitude : magnitude, minor);
        },
      ),
    );
  });

  it('agrees with formatHumanAmount in English', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_AMOUNT_MINOR }), fc.constantFrom('IDR', 'VND', 'KWD'), (minor, code) => {
        assert.equal(formatAmount(minor, c(code), 'en'), formatHumanAmount(minor, c(code)));
      }),
    );
  });
});

describe('formatDateTime', () => {
  it('writes UTC times in each language', () => {
    const d = new Date(Date.UTC(2026, 10, 21, 22, 14, 59));
    assert.equal(formatDateTime(d, 'en'), '21 Nov 2026, 22:14 UTC');
    assert.equal(formatDateTime(d, 'id'), '21 Nov 2026 pukul 22.14 UTC');
    const early = new Date(Date.UTC(2026, 0, 5, 7, 3));
    assert.equal(formatDateTime(early, 'en'), '5 Jan 2026, 07:03 UTC');
    assert.equal(formatDateTime(early, 'id'), '5 Jan 2026 pukul 07.03 UTC');
  });

  it('uses the Indonesian month abbreviations', () => {
    const months = Array.from({ length: 12 }, (_, m) => formatDateTime(new Date(Date.UTC(2026, m, 1)), 'id').split(' ')[1]);
    assert.deepEqual(months, ['Jan', 'Feb', 'Mar', 'Apr', 'Mei', 'Jun', 'Jul', 'Agu', 'Sep', 'Okt', 'Nov', 'Des']);
  });

  it('is the same whatever the time zone of the process (UTC only, no Intl)', () => {
    const d = new Date('2026-12-31T23:59:00.000Z');
    assert.equal(formatDateTime(d, 'en'), '31 Dec 2026, 23:59 UTC');
    assert.equal(formatDateTime(d, 'id'), '31 Des 2026 pukul 23.59 UTC');
  });

  it('refuses an invalid date rather than printing NaN', () => {
    assert.throws(() => formatDateTime(new Date(Number.NaN), 'en'), /valid date/);
  });
});

describe('localeSwitch and headers', () => {
  const squash = (s: string) => s.replace(/\s+/g, ' ').replace(/ >/g, '>');

  it('renders a labelled nav of links named in their own language, marking the current one', () => {
    const markup = squash(localeSwitch('id', (l) => `/pay/pay_1?lang=${l}`).value);
    assert.match(markup, /^<nav class="locale-switch" aria-label="Bahasa">/);
    assert.match(markup, /<a href="\/pay\/pay_1\?lang=en" lang="en" hreflang="en">English<\/a>/);
    assert.match(markup, /<a href="\/pay\/pay_1\?lang=id" lang="id" hreflang="id" aria-current="page">Bahasa Indonesia<\/a>/);
    assert.equal(markup.match(/aria-current/g)?.length, 1);
    assert.match(
      squash(localeSwitch('en', (l) => `?lang=${l}`).value),
      /aria-label="Language">.*lang="en" hreflang="en" aria-current="page">English/,
    );
  });

  it('escapes the links it is given', () => {
    const markup = localeSwitch('en', (l) => `/x?a="><script>&lang=${l}`).value;
    assert.ok(!markup.includes('<script>'));
    assert.ok(markup.includes('href="/x?a=&quot;&gt;&lt;script&gt;&amp;lang=en"'));
  });

  it('names the language in the headers and says the answer varies by Accept-Language', () => {
    assert.deepEqual(localeHeaders('id'), { 'Content-Language': 'id', Vary: 'Accept-Language' });
    assert.equal(htmlLang('en'), 'en');
  });
});
