import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { seriousAxeViolations } from '../harness/axe.ts';
import { chromiumMissing, launchChromium } from '../harness/chromium.ts';
import { createTestApp, json, quickStart, ref, type TestApp } from '../harness/test-app.ts';

/**
 * The payer's whole journey through a checkout in a real browser (Debian's Chromium through
 * playwright-core), on a phone and a desktop viewport, with and without JavaScript, in English and
 * Indonesian; axe-core on every payer page (checkout, payment, payment link). Screenshots go to
 * test-output/ for a person to look at.
 */
const SKIP = chromiumMissing('the checkout browser test');
const OUTPUT_DIR = join(process.cwd(), 'test-output');
/** Upper bound for anything the page does by itself (load, poll every 5 s, reload). */
const UI_TIMEOUT_MS = 20_000;

const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
] as const;

describe('checkout in Chromium: the payer chooses, goes back, pays', { skip: SKIP }, () => {
  let t: TestApp;
  const problems: string[] = [];
  const axeFindings: string[] = [];

  before(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    t = await createTestApp();
  });
  after(async () => {
    await t?.close();
  });

  const launch = (o: { viewport: { width: number; height: number }; javaScriptEnabled?: boolean; locale?: string }) =>
    launchChromium({
      viewport: o.viewport,
      javaScriptEnabled: o.javaScriptEnabled ?? true,
      locale: o.locale ?? 'en-US',
      timeoutMs: UI_TIMEOUT_MS,
    });

  const createCheckout = async (extra: Record<string, unknown> = {}) => {
    const res = await t.call('POST', '/checkout/create', {
      body: {
        amount: 275000,
        currency: 'IDR',
        reference_no: ref('csb'),
        description: 'Kemeja batik',
        success_url: 'https://shop.example.com/thanks',
        cancel_url: 'https://shop.example.com/cart',
        ...extra,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return json(res) as Record<string, unknown> & { id: string };
  };
  const checkout = async (id: string) => json(await t.call('GET', `/checkout/${id}`));
  const paymentStatus = async (id: string) => json(await t.call('GET', `/payment/${id}`))['status'];
  const paySandbox = async (paymentId: string) => {
    const res = await t.call('POST', `/sandbox/payment/${paymentId}/simulate`, { body: { outcome: 'succeeded' } });
    assert.equal(res.statusCode, 202, res.body);
    await t.deliverNotifications();
  };

  async function open(context: BrowserContext, path: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${path}: ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${path}: pageerror: ${e.message}`));
    const response = await page.goto(`${t.baseUrl}${path}`, { waitUntil: 'load', timeout: UI_TIMEOUT_MS });
    assert.equal(response?.status(), 200, path);
    return page;
  }
  const shot = async (page: Page, name: string) =>
    writeFileSync(join(OUTPUT_DIR, `${name}.png`), await page.screenshot({ fullPage: true }));
  const axe = async (page: Page, what: string) => {
    for (const v of await seriousAxeViolations(page))
      axeFindings.push(`${what}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(', ')}`);
  };
  const state = (page: Page) => page.locator('#status').getAttribute('data-checkout-state');
  const noSideways = async (page: Page, what: string) => {
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.ok(Number(overflow) <= 0, `${what}: ${String(overflow)} px of sideways scrolling`);
  };

  for (const { name, viewport } of VIEWPORTS) {
    for (const javaScriptEnabled of [true, false]) {
      const label = `${name}${javaScriptEnabled ? '' : '-nojs'}`;
      it(`${label}: choose a bank → instructions; go back, choose an e-wallet → the bank payment is canceled; pay → success`, async () => {
        const browser = await launch({ viewport, javaScriptEnabled });
        try {
          const c = await createCheckout();
          const page = await open(browser.context, `/pay/${c.id}`);
          assert.equal(await state(page), 'choosing');
          assert.equal((await page.locator('#amount').textContent())?.trim(), 'IDR 275,000.00');
          await noSideways(page, `${label} method list`);
          if (javaScriptEnabled) await axe(page, `checkout page (choosing, ${name})`);
          await shot(page, `checkout-${label}-methods`);

          await page.getByRole('button', { name: /Bank Central Asia/ }).click();
          await page.locator('#account-number').waitFor({ timeout: UI_TIMEOUT_MS });
          assert.equal(await state(page), 'paying');
          assert.match((await page.locator('#bank-name').textContent()) ?? '', /BCA/);
          const bankPayment = String((await checkout(c.id))['payment']);
          assert.equal(await paymentStatus(bankPayment), 'pending');
          await noSideways(page, `${label} instructions`);
          if (javaScriptEnabled) await axe(page, `checkout page (paying bank, ${name})`);
          await shot(page, `checkout-${label}-bank`);

          await page.locator('#choose-another').click();
          await page.getByRole('button', { name: /DANA/ }).click();
          await page.locator('#qr svg').waitFor({ timeout: UI_TIMEOUT_MS });
          assert.equal(await paymentStatus(bankPayment), 'canceled', 'going back and choosing again canceled the bank payment');
          const walletPayment = String((await checkout(c.id))['payment']);
          assert.notEqual(walletPayment, bankPayment);
          await shot(page, `checkout-${label}-ewallet`);

          await paySandbox(walletPayment);
          if (javaScriptEnabled) {
            // The page finds out by itself (it polls the payment's status) and reloads.
            await page.locator('#status[data-checkout-state="completed"]').waitFor({ timeout: UI_TIMEOUT_MS });
          } else {
            await page.reload({ waitUntil: 'load' });
          }
          assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Payment received');
          assert.equal(await page.locator('#return-link').getAttribute('href'), 'https://shop.example.com/thanks');
          assert.equal((await checkout(c.id))['status'], 'completed');
          if (javaScriptEnabled) await axe(page, `checkout page (completed, ${name})`);
          await shot(page, `checkout-${label}-success`);
        } finally {
          await browser.close();
        }
      });
    }
  }

  it('the Indonesian page: chosen by the browser language, amounts and instructions in Indonesian', async () => {
    const browser = await launch({ viewport: VIEWPORTS[0].viewport, locale: 'id-ID' });
    try {
      const c = await createCheckout();
      const page = await open(browser.context, `/pay/${c.id}`);
      assert.equal(await page.getAttribute('html', 'lang'), 'id');
      assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Pilih cara bayar');
      assert.equal((await page.locator('#amount').textContent())?.trim(), 'IDR 275.000,00');
      assert.ok(await page.getByRole('heading', { name: 'Dompet digital' }).isVisible());
      await axe(page, 'checkout page (choosing, Indonesian)');
      await shot(page, 'checkout-id-methods');
      await page.getByRole('button', { name: /Bank Mandiri/ }).click();
      await page.locator('#account-number').waitFor({ timeout: UI_TIMEOUT_MS });
      assert.equal((await page.locator('#status-title').textContent())?.trim(), 'Menunggu pembayaran Anda');
      assert.ok(await page.getByRole('link', { name: 'Pilih metode pembayaran lain' }).isVisible());
      await axe(page, 'checkout page (paying, Indonesian)');
      await shot(page, 'checkout-id-bank');
    } finally {
      await browser.close();
    }
  });

  it('the payment-link page: enter an amount, continue to the checkout; axe on the link and payment pages', async () => {
    const browser = await launch({ viewport: VIEWPORTS[0].viewport });
    try {
      const created = await t.call('POST', '/payment_link/create', {
        body: { currency: 'IDR', amount_min: 10000, amount_max: 5000000, description: 'Donasi' },
      });
      assert.equal(created.statusCode, 201, created.body);
      const link = json(created) as { id: string };
      const page = await open(browser.context, `/pay/${link.id}`);
      await axe(page, 'payment-link page');
      await page.getByLabel(/Amount to pay/).fill('125,000');
      await shot(page, 'payment-link');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.locator('#status[data-checkout-state="choosing"]').waitFor({ timeout: UI_TIMEOUT_MS });
      assert.equal((await page.locator('#amount').textContent())?.trim(), 'IDR 125,000.00');

      const payment = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'counter' }) });
      assert.equal(payment.statusCode, 201, payment.body);
      const payPage = await open(browser.context, `/pay/${String(json(payment)['id'])}`);
      await axe(payPage, 'payment page (counter)');
    } finally {
      await browser.close();
    }
  });

  it('axe-core found no serious or critical violation on any payer page', () => {
    assert.deepEqual(axeFindings, []);
  });

  it('logged no console error, CSP refusal or script exception on any page', () => {
    assert.deepEqual(problems, []);
  });
});
