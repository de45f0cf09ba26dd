import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeHtml, html, safeHref, trusted } from '../../src/http/pages/html.ts';
import { formatDateTime } from '../../src/http/pages/locale.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { formatMajorAmount, MAX_AMOUNT_MINOR, parseMajorAmount } from '../../src/lib/money.ts';
import { formatHumanAmount } from '../../src/lib/money-display.ts';
import { payerState } from '../../src/modules/payments/payer-status.ts';

const c = (code: string) => code as CurrencyCode;

describe('formatHumanAmount', () => {
  it('groups thousands and shows exactly the minor-unit digits', () => {
    assert.equal(formatHumanAmount(15_000_000n, c('IDR')), 'IDR 150,000.00');
    assert.equal(formatHumanAmount(1_010n, c('USD')), 'USD 10.10');
    assert.equal(formatHumanAmount(5n, c('USD')), 'USD 0.05');
    assert.equal(formatHumanAmount(1_234_567n, c('VND')), 'VND 1,234,567');
    assert.equal(formatHumanAmount(999n, c('JPY')), 'JPY 999');
    assert.equal(formatHumanAmount(1_000n, c('JPY')), 'JPY 1,000');
    assert.equal(formatHumanAmount(1_234_567n, c('KWD')), 'KWD 1,234.567');
    assert.equal(formatHumanAmount(MAX_AMOUNT_MINOR, c('IDR')), 'IDR 9,999,999,999,999.99');
  });

  it('is exact: removing the code and separators gives back the same amount', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_AMOUNT_MINOR }), fc.constantFrom('IDR', 'VND', 'KWD', 'JPY'), (minor, code) => {
        const text = formatHumanAmount(minor, c(code));
        assert.ok(text.startsWith(`${code} `));
        const plain = text.slice(4).replace(/,/g, '');
        const parsed = parseMajorAmount(plain, c(code));
        assert.deepEqual(parsed, { ok: true, minor });
        assert.equal(Number(plain), Number(formatMajorAmount(minor, c(code))));
      }),
    );
  });
});

describe('html template', () => {
  it('escapes every interpolated value for text and attributes', () => {
    assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const evil = `"><script>alert(1)</script>`;
    assert.equal(
      html`<p title="${evil}">${evil}</p>`.value,
      `<p title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</p>`,
    );
  });

  it('nests templates and arrays without escaping them twice, and drops empty values', () => {
    const items = ['a&b', '<c>'].map((x) => html`<li>${x}</li>`);
    // Through an alias: the formatter would otherwise reflow the markup of an `html` template.
    const h = html;
    assert.equal(h`<ul>${items}</ul>${null}${undefined}${false}`.value, '<ul><li>a&amp;b</li><li>&lt;c&gt;</li></ul>');
    assert.equal(html`${trusted('<svg></svg>')}`.value, '<svg></svg>');
    assert.equal(html`${0}`.value, '0');
  });

  it('accepts only safe link schemes', () => {
    assert.equal(safeHref('https://checkout.example/x', 'web'), 'https://checkout.example/x');
    assert.equal(safeHref('http://127.0.0.1/x', 'web'), 'http://127.0.0.1/x');
    assert.equal(safeHref('dana://pay?token=1', 'web'), undefined);
    assert.equal(safeHref('dana://pay?token=1', 'app'), 'dana://pay?token=1');
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,x',
      'vbscript:x',
      '//evil.example',
      'no-scheme',
    ]) {
      assert.equal(safeHref(bad, 'app'), undefined, bad);
      assert.equal(safeHref(bad, 'web'), undefined, bad);
    }
  });
});

describe('payer page helpers', () => {
  it('formats times in UTC for readers without JavaScript', () => {
    assert.equal(formatDateTime(new Date(Date.UTC(2026, 0, 5, 7, 3, 59)), 'en'), '5 Jan 2026, 07:03 UTC');
  });

  it('shows a pending payment past its expiry as expired, at the exact instant', () => {
    const expiresAt = new Date(Date.UTC(2026, 0, 1, 12));
    assert.equal(payerState({ status: 'pending', expiresAt }, new Date(expiresAt.getTime() - 1)), 'payable');
    assert.equal(payerState({ status: 'pending', expiresAt }, expiresAt), 'expired');
    assert.equal(payerState({ status: 'processing', expiresAt }, expiresAt), 'preparing');
    assert.equal(payerState({ status: 'succeeded', expiresAt }, expiresAt), 'succeeded');
  });
});
