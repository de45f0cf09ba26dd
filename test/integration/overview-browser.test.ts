import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { ManualClock } from '../../src/lib/clock.ts';
import { refreshOverview } from '../../src/modules/overview/index.ts';
import { seriousAxeViolations } from '../harness/axe.ts';
import { chromiumMissing, launchChromium } from '../harness/chromium.ts';
import { moveTo, seedPayment } from '../harness/payment-fixtures.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * The overview (dashboard home, docs/overview.md) in Chromium: 30 days of payments, the refresh,
 * then the page as a person sees it — every chart drawn under the real CSP with no script, the
 * numbers readable as text, no serious axe violation, nothing wider than a phone — and a
 * screenshot of it under test-output/overview/ for a person to look at.
 */
const SKIP = chromiumMissing('the overview browser test');
const OUTPUT_DIR = join(process.cwd(), 'test-output', 'overview');
const UI_TIMEOUT_MS = 15_000;
const DAY_MS = 86_400_000;
const MIN_MS = 60_000;

describe('overview in Chromium', { skip: SKIP }, () => {
  let t: TestApp;
  let clock: ManualClock;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const problems: string[] = [];

  before(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    clock = new ManualClock(new Date('2026-11-21T15:00:00Z'));
    t = await createTestApp({ clock });
    const store = t.testStore.store;
    // 30 days of history, written straight to the store: a varying number per day and channel,
    // some paid after a few minutes, some expired or failed; the amounts vary too.
    const start = clock.now().getTime() - 29 * DAY_MS;
    for (let day = 0; day < 30; day += 1) {
      const perDay = 2 + ((day * 7) % 5);
      for (let i = 0; i < perDay; i += 1) {
        const createdAt = new Date(start + day * DAY_MS + i * 37 * MIN_MS - 12 * 3600_000);
        const channel = (['bank', 'ewallet', 'counter'] as const)[(day + i) % 3] ?? 'bank';
        const outcome = (day + 2 * i) % 6;
        const p = await seedPayment(store, {
          merchantId: t.a.id,
          createdAt,
          channel,
          status: outcome === 4 ? 'expired' : outcome === 5 ? 'failed' : 'pending',
          amountMinor: BigInt(50_000 + ((day * 13 + i * 29) % 40) * 25_000) * 100n,
        });
        if (outcome < 4)
          await moveTo(store, p.id, 'succeeded', new Date(createdAt.getTime() + (1 + outcome * outcome * 7) * MIN_MS));
      }
    }
    // Today's, through the API: one paid and refunded in part, one still pending.
    const created = await t.call('POST', '/payment/create', { body: quickStart({ amount: 320_000, channel: 'bank' }) });
    assert.equal(created.statusCode, 201, created.body);
    const id = String(json(created)['id']);
    clock.advance(4 * MIN_MS);
    assert.equal((await t.call('POST', `/sandbox/payment/${id}/simulate`, { body: { outcome: 'succeeded' } })).statusCode, 202);
    await t.deliverNotifications();
    assert.equal((await t.call('POST', `/payment/${id}/refund`, { body: { amount: 20_000 } })).statusCode, 201);
    await t.deliverNotifications();
    assert.equal((await t.call('POST', '/payment/create', { body: quickStart({ channel: 'counter' }) })).statusCode, 201);
    clock.advance(30_000);
    const outcome = await refreshOverview({ store, clock });
    assert.equal(outcome.ran, true);

    browser = await launchChromium({ viewport: { width: 1280, height: 900 }, timeoutMs: UI_TIMEOUT_MS });
    page = await browser.context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('opens on the overview after sign-in: freshness, charts with their numbers, no script, no axe problem', async () => {
    await page.goto(`${t.baseUrl}/dashboard/login`);
    await page.fill('#api-key', t.a.sandboxKey);
    await Promise.all([page.waitForURL(/\/dashboard\//), page.click('#login')]);
    const res = await page.goto(`${t.baseUrl}/dashboard`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.locator('#nav-overview.current').count(), 1);
    assert.match((await page.locator('#freshness').textContent()) ?? '', /Updated .* ago\); refreshed every minute/);
    // Every chart is an SVG the CSP let through, labelled, with its numbers in a table.
    const charts = page.locator('svg.chart-svg[role="img"]');
    assert.ok((await charts.count()) >= 3, 'volume, time to pay, refunds');
    const bars = await page.locator('#volume-IDR rect.bar').count();
    assert.equal(bars, 30, 'one bar per day');
    const drawn = await page
      .locator('#volume-IDR rect.bar')
      .evaluateAll((rs) => rs.filter((r) => Number(r.getAttribute('height')) > 0).length);
    assert.ok(drawn >= 25, `bars drawn: ${drawn}`);
    assert.match((await page.locator('#ttp-median').textContent()) ?? '', /between|under/);
    assert.match((await page.locator('#refund-totals').textContent()) ?? '', /IDR 20,000\.00/);
    // The numbers are text in the page, even with the <details> closed (screen readers, no JS).
    assert.match((await page.locator('#volume-IDR table').textContent()) ?? '', /IDR [\d,]+\.\d\d/);
    assert.equal(await page.evaluate('document.scripts.length'), 0, 'no script on the page');
    await page.locator('#volume-IDR details summary').click();
    await page.screenshot({ path: join(OUTPUT_DIR, 'overview.png'), fullPage: true });
    const violations = await seriousAxeViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations));
    assert.deepEqual(problems, [], 'no console error or CSP refusal');
  });

  it('fits a phone: nothing scrolls sideways, the rate and status tables stack', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.baseUrl}/dashboard`);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    const wide = await page.evaluate(
      `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((e) => e.tagName + '#' + e.id + '.' + e.getAttribute('class') + ':' + Math.round(e.getBoundingClientRect().right)).slice(0, 12).join(', ')`,
    );
    assert.ok(Number(overflow) <= 0, `the page is ${String(overflow)} px wider than the phone: ${String(wide)}`);
    await page.screenshot({ path: join(OUTPUT_DIR, 'overview-phone.png'), fullPage: true });
    const violations = await seriousAxeViolations(page);
    assert.deepEqual(violations, [], JSON.stringify(violations));
    assert.deepEqual(problems, []);
  });
});
