import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import jsQRModule from 'jsqr';
import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { chromiumMissing, launchChromium } from '../harness/chromium.ts';
import { moveTo } from '../harness/payment-fixtures.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * The payer page in a real browser: Debian's Chromium driven by playwright-core, against the app
 * listening on a loopback port. Screenshots go to test-output/ (git-ignored) for a person to look at.
 */
// jsqr is CommonJS that also sets `default`; its types only describe `default`.
const jsQR = jsQRModule.default;
const SKIP = chromiumMissing('the browser test');
const OUTPUT_DIR = join(process.cwd(), 'test-output');
/** Upper bound for anything the page does by itself (load, poll, reload). */
const UI_TIMEOUT_MS = 15_000;

/**
 * A browser with a fresh profile of its own, removed afterwards. English unless told otherwise,
 * whatever the machine's language: the page follows the browser's Accept-Language.
 */
const launch = (options: { javaScriptEnabled: boolean; locale?: string; timezoneId?: string }) =>
  launchChromium({
    javaScriptEnabled: options.javaScriptEnabled,
    viewport: { width: 480, height: 1000 },
    permissions: ['clipboard-read', 'clipboard-write'],
    timeoutMs: UI_TIMEOUT_MS,
    locale: options.locale ?? 'en-US',
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
  });

describe('payer page in Chromium', { skip: SKIP }, () => {
  let t: TestApp;
  let base: string;
  let browser: Awaited<ReturnType<typeof launch>>;
  const problems: string[] = [];

  before(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    t = await createTestApp();
    base = t.baseUrl; // the test app already listens on loopback
    browser = await launch({ javaScriptEnabled: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function create(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await t.call('POST', '/payment/create', { body: quickStart(body) });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  }

  /** Opens a page and records every console error and uncaught exception (a CSP refusal is one). */
  async function open(id: string, inBrowser = browser): Promise<Page> {
    const page = await inBrowser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    const response = await page.goto(`${base}/pay/${id}`, { waitUntil: 'load', timeout: UI_TIMEOUT_MS });
    assert.equal(response?.status(), 200);
    return page;
  }

  it('shows the e-wallet QR code, which decodes to the provider QR string, and saves a screenshot', async () => {
    const p = await create({ channel: 'ewallet', amount: 25000.5, description: 'Two coffees' });
    const instructions = p['instructions'] as { qr_string: string; checkout_url: string };
    const page = await open(String(p['id']));
    const qr = page.locator('#qr svg');
    assert.ok(await qr.isVisible(), 'QR code visible');
    const box = await qr.boundingBox();
    assert.ok(box !== null && box.width >= 200 && box.height >= 200, `QR code large enough to scan: ${JSON.stringify(box)}`);
    // Decode what is on screen, as a phone camera would.
    const png = PNG.sync.read(await qr.screenshot());
    const decoded = jsQR(new Uint8ClampedArray(png.data), png.width, png.height);
    assert.equal(decoded?.data, instructions.qr_string);
    assert.equal(await page.locator('#checkout-link').getAttribute('href'), instructions.checkout_url);
    assert.ok(await page.locator('#checkout-link').isVisible());
    assert.equal((await page.locator('#amount').textContent())?.trim(), 'IDR 25,000.50');
    // The script ran under the CSP: the countdown ticks and the expiry shows in local time.
    await page.locator('#countdown', { hasText: /^Time left: \d+:\d\d(:\d\d)?$/ }).waitFor({ timeout: UI_TIMEOUT_MS });
    writeFileSync(join(OUTPUT_DIR, 'pay-page.png'), await page.screenshot({ fullPage: true }));
    await page.close();
  });

  it('shows the virtual account and the counter payment code with working copy buttons', async () => {
    const bank = await create({ channel: 'bank' });
    const va = (bank['instructions'] as { account_number: string }).account_number;
    const bankPage = await open(String(bank['id']));
    assert.equal((await bankPage.locator('#account-number').textContent())?.trim(), va);
    assert.ok(await bankPage.locator('#account-number').isVisible());
    // Hidden without JavaScript, shown by the script; it puts the exact number on the clipboard.
    const copy = bankPage.locator('button.copy');
    assert.ok(await copy.isVisible());
    await copy.click();
    await bankPage.locator('button.copy', { hasText: 'Copied' }).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await bankPage.evaluate('navigator.clipboard.readText()'), va);
    writeFileSync(join(OUTPUT_DIR, 'pay-page-bank.png'), await bankPage.screenshot({ fullPage: true }));
    await bankPage.close();

    const counter = await create({ channel: 'counter' });
    const code = (counter['instructions'] as { payment_code: string }).payment_code;
    const counterPage = await open(String(counter['id']));
    assert.equal((await counterPage.locator('#payment-code').textContent())?.trim(), code);
    assert.ok(await counterPage.locator('#outlets li').first().isVisible());
    writeFileSync(join(OUTPUT_DIR, 'pay-page-counter.png'), await counterPage.screenshot({ fullPage: true }));
    await counterPage.close();
  });

  it('updates to the final state when the payment succeeds while the page is open', async () => {
    const p = await create({ channel: 'bank' });
    const id = String(p['id']);
    const page = await open(id);
    assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Waiting for your payment');
    await moveTo(t.testStore.store, id, 'succeeded', t.clock.now());
    // A payer returning from the banking app: the page checks at once instead of at the next tick.
    await page.evaluate("window.dispatchEvent(new Event('focus'))");
    await page.locator('#status-title', { hasText: 'Payment received' }).waitFor({ timeout: UI_TIMEOUT_MS });
    assert.equal(await page.locator('#instructions').count(), 0, 'no instructions once paid');
    writeFileSync(join(OUTPUT_DIR, 'pay-page-succeeded.png'), await page.screenshot({ fullPage: true }));
    await page.close();
  });

  /** What the script should show for the page's expiry in `lang` (evaluated in the page). */
  const localExpiry = (lang: string) =>
    `new Date(document.getElementById('pay').getAttribute('data-expires-at')).toLocaleString('${lang}', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' })`;

  it('speaks Indonesian to a browser set to id-ID, script texts included, and switches to English', async () => {
    const indonesian = await launch({ javaScriptEnabled: true, locale: 'id-ID', timezoneId: 'Asia/Jakarta' });
    try {
      const p = await create({ channel: 'bank', amount: 150000 });
      const va = (p['instructions'] as { account_number: string }).account_number;
      const page = await open(String(p['id']), indonesian);
      assert.equal(await page.getAttribute('html', 'lang'), 'id');
      assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Menunggu pembayaran Anda');
      assert.equal((await page.locator('#amount').textContent())?.trim(), 'IDR 150.000,00');
      assert.ok(await page.locator('#instructions h2', { hasText: 'Transfer ke virtual account ini' }).isVisible());
      // The script's words come from the page: the countdown and the copy button speak Indonesian.
      await page.locator('#countdown', { hasText: /^Sisa waktu: \d+:\d\d(:\d\d)?$/ }).waitFor({ timeout: UI_TIMEOUT_MS });
      const copy = page.locator('button.copy');
      assert.equal((await copy.textContent())?.trim(), 'Salin');
      await copy.click();
      await page.locator('button.copy', { hasText: 'Tersalin' }).waitFor({ timeout: UI_TIMEOUT_MS });
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), va);
      // The script re-renders the expiry in the payer's zone (Jakarta: WIB) with the page's language.
      const expires = (await page.locator('#expires-text').textContent()) ?? '';
      assert.match(expires, /^\d{1,2} [A-Z][a-z]{2} \d{4}.* WIB$/, expires);
      assert.equal(expires, await page.evaluate(localExpiry('id')));
      writeFileSync(join(OUTPUT_DIR, 'pay-page-id.png'), await page.screenshot({ fullPage: true }));

      // The switch: English, although the browser still asks for Indonesian.
      const nav = page.getByRole('navigation', { name: 'Bahasa' });
      assert.equal(await nav.getByRole('link', { name: 'Bahasa Indonesia' }).getAttribute('aria-current'), 'page');
      await nav.getByRole('link', { name: 'English' }).click();
      await page.locator('#status-title', { hasText: 'Waiting for your payment' }).waitFor({ timeout: UI_TIMEOUT_MS });
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      assert.match(page.url(), /\?lang=en$/);
      await page.locator('#countdown', { hasText: /^Time left: / }).waitFor({ timeout: UI_TIMEOUT_MS });
      // Localised by the page's lang, not the browser's: English names for the same zone now.
      const englishExpires = (await page.locator('#expires-text').textContent()) ?? '';
      assert.equal(englishExpires, await page.evaluate(localExpiry('en')));
      assert.doesNotMatch(englishExpires, /WIB/, englishExpires);
      await page.close();
    } finally {
      await indonesian.close();
    }
  });

  it('logged no console error, CSP refusal or script exception on any page', () => {
    assert.deepEqual(problems, []);
  });

  it('keeps the essentials with JavaScript disabled', async () => {
    const noJs = await launch({ javaScriptEnabled: false });
    try {
      const p = await create({ channel: 'ewallet' });
      const page = await noJs.context.newPage();
      const response = await page.goto(`${base}/pay/${String(p['id'])}`, { timeout: UI_TIMEOUT_MS });
      assert.equal(response?.status(), 200);
      assert.ok(await page.locator('#qr svg').isVisible());
      assert.ok(await page.locator('#expires-text').isVisible());
      assert.match((await page.locator('#expires-text').textContent()) ?? '', / UTC$/, 'server-rendered expiry time');
      assert.equal(await page.locator('button.copy').count(), 0, 'e-wallet page has no copy buttons');
      assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Waiting for your payment');
      assert.equal((await page.locator('#countdown').textContent()) ?? '', '', 'no countdown without JavaScript');
      writeFileSync(join(OUTPUT_DIR, 'pay-page-nojs.png'), await page.screenshot({ fullPage: true }));
    } finally {
      await noJs.close();
    }
  });
});
