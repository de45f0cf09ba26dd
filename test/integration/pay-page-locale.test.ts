import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import { moveTo } from '../harness/payment-fixtures.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * The payer page in English and Indonesian (docs/decisions/0022-payer-page-languages.md): how the
 * language is chosen, what changes with it, and what must not (the script's bytes and CSP hash).
 */
const T0 = Date.UTC(2026, 4, 10, 8, 30, 0);
const INDONESIAN = 'id-ID,id;q=0.9,en;q=0.8';

/** The text a person reads: tags removed, entities decoded, whitespace collapsed. */
function visibleText(page: string): string {
  return page
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** `<a …>` elements of the language switch, attributes normalised. */
function switchLinks(page: string): string[] {
  const nav = /<nav class="locale-switch"[^>]*>([^]*?)<\/nav>/.exec(page)?.[1];
  assert.ok(nav !== undefined, 'a language switch');
  return [...nav.matchAll(/<a\b[^>]*>[^<]*<\/a\s*>/g)].map((m) => m[0].replace(/\s+/g, ' ').replace(/ >/g, '>'));
}

describe('GET /pay/{id} in English and Indonesian', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock });
  });
  after(() => t.close());

  async function create(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await t.call('POST', '/payment/create', { body: quickStart(body) });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  }

  async function page(path: string, acceptLanguage?: string) {
    const headers: Record<string, string> = acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage };
    const res = await t.call('GET', path, { key: null, headers });
    return { res, html: res.body, text: visibleText(res.body) };
  }

  it('answers Accept-Language id with the whole bank page in Indonesian', async () => {
    const p = await create({ channel: 'bank', amount: 150000.0, description: 'Pesanan #1001' });
    const instructions = p['instructions'] as Record<string, string>;
    const { res, html, text } = await page(`/pay/${String(p['id'])}`, INDONESIAN);
    assert.equal(res.statusCode, 200);
    assert.match(html, /<html lang="id">/);
    assert.equal(res.headers['content-language'], 'id');
    assert.match(String(res.headers['vary']), /\bAccept-Language\b/i);
    assert.equal(res.headers['referrer-policy'], 'no-referrer', 'the page headers are all still there');
    for (const phrase of [
      'Bayar ke Merchant A',
      'IDR 150.000,00',
      'Menunggu pembayaran Anda',
      'Ikuti petunjuk di bawah ini.',
      'Transfer ke virtual account ini',
      `Nomor rekening ${instructions['account_number']} Salin`,
      `Nama rekening ${instructions['account_holder_name']}`,
      'Jumlah IDR 150.000,00 (harus tepat)',
      `Buka aplikasi ${instructions['bank_name']}, internet banking, atau ATM.`,
      `Pastikan nama rekening adalah ${instructions['account_holder_name']}, lalu bayar tepat IDR 150.000,00.`,
      'Bayar sebelum 11 Mei 2026 pukul 08.30 UTC',
      'Status per 10 Mei 2026 pukul 08.30 UTC',
      'halaman ini dimuat ulang setiap 30 detik',
      'Pembayaran uji coba (sandbox): tidak ada uang sungguhan yang berpindah.',
      'Pesanan #1001',
    ]) {
      assert.ok(text.includes(phrase), `${phrase}\n---\n${text}`);
    }
    assert.match(html, /<title>Menunggu pembayaran Anda · Merchant A<\/title>/);
    // The script's words, in data attributes (the script itself is the same in every language).
    assert.match(html, /data-text-time-left="Sisa waktu"/);
    assert.match(html, /data-text-time-up="Waktu habis"/);
    assert.match(html, /data-text-copied="Tersalin"/);
    for (const english of [
      'Waiting for your payment',
      'Account number',
      'Pay before',
      'Copy',
      'Sandbox payment',
      'Status as of',
    ]) {
      assert.ok(!text.includes(english), `no English left: ${english}`);
    }
  });

  it('translates the e-wallet and counter instructions, and the QR code’s accessible name', async () => {
    const wallet = await create({ channel: 'ewallet', amount: 25000.5 });
    const w = wallet['instructions'] as Record<string, string>;
    const walletPage = await page(`/pay/${String(wallet['id'])}`, 'id');
    assert.ok(walletPage.text.includes(`Bayar dengan ${w['provider_name']}`), walletPage.text);
    assert.ok(walletPage.text.includes(`Pindai kode ini dengan aplikasi ${w['provider_name']}`));
    assert.ok(walletPage.text.includes(`Bayar IDR 25.000,50 dengan ${w['provider_name']}`));
    assert.ok(walletPage.text.includes(`Buka aplikasi ${w['provider_name']}`));
    assert.match(walletPage.html, /role="img" aria-label="Kode QR untuk membayar dengan /);

    const counter = await create({ channel: 'counter', amount: 150000 });
    const c = counter['instructions'] as { payment_code: string; partner_name: string };
    const counterPage = await page(`/pay/${String(counter['id'])}`, 'id');
    assert.ok(counterPage.text.includes(`Bayar tunai di ${c.partner_name}`), counterPage.text);
    assert.ok(counterPage.text.includes(`Kode pembayaran ${c.payment_code} Salin`));
    assert.ok(counterPage.text.includes('Bayar di'));
    assert.ok(counterPage.text.includes('lalu bayar tepat IDR 150.000,00. Simpan struknya.'));
  });

  it('translates the final states', async () => {
    const p = await create({ channel: 'bank' });
    const id = String(p['id']);
    await moveTo(t.testStore.store, id, 'succeeded', clock.now());
    const { html, text } = await page(`/pay/${id}`, 'id');
    assert.ok(text.includes('Pembayaran diterima'), text);
    assert.ok(text.includes('Terima kasih. Pembayaran Anda kepada Merchant A sudah selesai'));
    assert.ok(!html.includes('http-equiv="refresh"'));
    assert.ok(!text.includes('dimuat ulang'), 'no reload notice on a final page');
  });

  it('lets ?lang= override Accept-Language both ways, and ignores a language it does not know', async () => {
    const p = await create({ channel: 'bank' });
    const id = String(p['id']);
    const en = await page(`/pay/${id}?lang=en`, INDONESIAN);
    assert.match(en.html, /<html lang="en">/);
    assert.equal(en.res.headers['content-language'], 'en');
    assert.ok(en.text.includes('Waiting for your payment'));
    assert.ok(en.text.includes('IDR 150,000.00'));

    const id_ = await page(`/pay/${id}?lang=id`, 'en-US,en;q=0.9');
    assert.match(id_.html, /<html lang="id">/);
    assert.ok(id_.text.includes('Menunggu pembayaran Anda'));

    const unknown = await page(`/pay/${id}?lang=fr`, INDONESIAN);
    assert.equal(unknown.res.statusCode, 200);
    assert.equal(unknown.res.headers['content-language'], 'id', 'an unknown lang falls back to the header');
    const repeated = await page(`/pay/${id}?lang=xx&lang=id`);
    assert.equal(repeated.res.statusCode, 200, 'a repeated lang is no validation error on an HTML page');
    assert.equal(repeated.res.headers['content-language'], 'id');
  });

  it('answers English when Accept-Language is absent or names no language we speak', async () => {
    const p = await create({ channel: 'bank' });
    for (const header of [undefined, 'fr-FR,fr;q=0.9', 'ms,en', '*', 'garbage;;q=x,,']) {
      const { res, html } = await page(`/pay/${String(p['id'])}`, header);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-language'], 'en', String(header));
      assert.match(html, /<html lang="en">/);
      assert.match(String(res.headers['vary']), /\bAccept-Language\b/i);
    }
  });

  it('shows a switch whose links keep the page and set ?lang=, the current language marked', async () => {
    const p = await create({ channel: 'bank' });
    const id = String(p['id']);
    const { html } = await page(`/pay/${id}`, INDONESIAN);
    assert.match(html, /<nav class="locale-switch" aria-label="Bahasa">/);
    assert.deepEqual(switchLinks(html), [
      `<a href="/pay/${id}?lang=en" lang="en" hreflang="en">English</a>`,
      `<a href="/pay/${id}?lang=id" lang="id" hreflang="id" aria-current="page">Bahasa Indonesia</a>`,
    ]);
    // Following the English link gives the English page, although the browser still asks for Indonesian.
    const href = /href="([^"]+)" lang="en"/.exec(switchLinks(html)[0] ?? '')?.[1];
    assert.ok(href !== undefined);
    const followed = await page(href, INDONESIAN);
    assert.match(followed.html, /<html lang="en">/);
    assert.match(followed.html, /<nav class="locale-switch" aria-label="Language">/);
    assert.ok(switchLinks(followed.html)[0]?.includes('aria-current="page">English'));
  });

  it('keeps the script and style byte-identical across languages, so one CSP hash fits both', async () => {
    const p = await create({ channel: 'bank' });
    const en = await page(`/pay/${String(p['id'])}`, 'en');
    const id = await page(`/pay/${String(p['id'])}`, 'id');
    const script = (html: string) => /<script>([^]*?)<\/script>/.exec(html)?.[1];
    const style = (html: string) => /<style>([^]*?)<\/style>/.exec(html)?.[1];
    assert.ok(script(en.html) !== undefined && style(en.html) !== undefined);
    assert.equal(script(id.html), script(en.html));
    assert.equal(style(id.html), style(en.html));
    assert.equal(id.res.headers['content-security-policy'], en.res.headers['content-security-policy']);
    assert.ok(!script(en.html)?.includes('Time left'), 'no words of any language inside the script');
    assert.doesNotMatch(id.html, /\sstyle="|\son[a-z]+=/);
  });

  it('translates the not-found page without echoing the id, its switch links relative', async () => {
    const { res, html, text } = await page(`/pay/${encodeURIComponent('pay_<script>')}`, INDONESIAN);
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-language'], 'id');
    assert.match(html, /<html lang="id">/);
    assert.ok(text.includes('Pembayaran tidak ditemukan'), text);
    assert.ok(text.includes('mintalah tautan baru kepada penjual'));
    assert.deepEqual(switchLinks(html), [
      '<a href="?lang=en" lang="en" hreflang="en">English</a>',
      '<a href="?lang=id" lang="id" hreflang="id" aria-current="page">Bahasa Indonesia</a>',
    ]);
    assert.ok(!html.includes('script&gt;') && !html.includes('<script'), 'the id is never echoed');
  });

  it('leaves the status document untranslated', async () => {
    const p = await create({ channel: 'bank' });
    const res = await t.call('GET', `/pay/${String(p['id'])}/status`, { key: null, headers: { 'accept-language': 'id' } });
    assert.equal(res.statusCode, 200);
    assert.equal(json(res)['state'], 'payable');
    assert.equal(res.headers['content-language'], undefined);
  });
});
