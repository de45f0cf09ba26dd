import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/lib/clock.ts';
import type { PaymentStatus } from '../../src/modules/payments/payment-states.ts';
import { moveTo, seedPayment } from '../harness/payment-fixtures.ts';
import { TEST_OPERATOR, createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';

/**
 * The payer page as a client without JavaScript sees it: the HTML and headers of one request.
 * (test/integration/pay-page-browser.test.ts drives the same page in Chromium.)
 */
const T0 = Date.UTC(2026, 4, 10, 8, 30, 0);

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

describe('GET /pay/{id} (no JavaScript)', () => {
  let t: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(T0);
    t = await createTestApp({ clock });
  });
  after(() => t.close());

  async function create(body: Record<string, unknown>, key = t.a.sandboxKey): Promise<Record<string, unknown>> {
    const res = await t.call('POST', '/payment/create', { key, body: quickStart(body) });
    assert.equal(res.statusCode, 201, res.body);
    return json(res);
  }

  async function page(id: string) {
    const res = await t.call('GET', `/pay/${id}`, { key: null });
    return { res, html: res.body, text: visibleText(res.body) };
  }

  function assertPageHeaders(res: { headers: Record<string, unknown> }) {
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/, 'no unsafe-inline, no hosts');
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe|https?:|\*/);
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cache-control'], 'no-store');
  }

  it('shows a bank payment: virtual account, bank, holder, human amount, expiry and status, without an API key', async () => {
    const p = await create({ channel: 'bank', amount: 150000.0, description: 'Order #1001: 2 coffees' });
    const instructions = p['instructions'] as Record<string, string>;
    const { res, html, text } = await page(String(p['id']));
    assert.equal(res.statusCode, 200);
    assertPageHeaders(res);
    assert.ok(text.includes('Transfer to this virtual account'), text);
    assert.ok(text.includes(String(instructions['account_number'])));
    assert.ok(text.includes(`${instructions['bank_name']} (${instructions['bank_code']})`));
    assert.ok(text.includes(`Account name ${instructions['account_holder_name']}`));
    assert.ok(text.includes('IDR 150,000.00'), 'amount formatted for people, exact minor digits');
    assert.ok(text.includes('Order #1001: 2 coffees'));
    assert.ok(text.includes('Pay to Merchant A'));
    assert.ok(text.includes('Waiting for your payment'));
    assert.ok(text.includes('Sandbox payment: no real money moves.'));
    // Expiry readable without JavaScript (UTC) and machine-readable for the script.
    assert.ok(text.includes('Pay before 11 May 2026, 08:30 UTC'), text);
    assert.ok(html.includes(`datetime="${String(p['expires_at'])}"`));
    // Without JavaScript, a page that can still change reloads itself.
    assert.match(html, /<noscript><meta http-equiv="refresh" content="30" \/><\/noscript>/);
  });

  it('shows an e-wallet payment with a locally rendered QR code and safe links', async () => {
    const p = await create({ channel: 'ewallet', amount: 25000.5 });
    const instructions = p['instructions'] as Record<string, string>;
    const { html, text } = await page(String(p['id']));
    assert.ok(text.includes(`Pay with ${instructions['provider_name']}`));
    assert.ok(text.includes('IDR 25,000.50'));
    const svg = /<div class="qr" id="qr">\s*(<svg [^]*?<\/svg>)\s*<\/div>/.exec(html)?.[1];
    assert.ok(svg !== undefined, 'an inline SVG QR code');
    assert.match(svg, /role="img" aria-label="QR code to pay with /);
    assert.match(svg, /<path [^>]*d="M[0-9hvmHVMz .-]+"/, 'drawn as path geometry');
    assert.ok(!svg.includes(instructions['qr_string'] ?? '-'), 'the payload is encoded, not embedded as text');
    assert.ok(html.includes(`href="${instructions['checkout_url']}"`));
    assert.ok(html.includes(`href="${instructions['deep_link']}"`));
    // Nothing on the page loads from anywhere: no src attributes, no external stylesheet.
    assert.doesNotMatch(html, /\ssrc=|<link\b|@import|url\(/);
  });

  it('shows a counter payment: payment code, partner and outlets', async () => {
    const p = await create({ channel: 'counter', amount: 150000 });
    const instructions = p['instructions'] as { payment_code: string; partner_name: string; outlets: string[] };
    const { text, html } = await page(String(p['id']));
    assert.ok(text.includes(`Pay in cash at ${instructions.partner_name}`));
    assert.ok(text.includes(`Payment code ${instructions.payment_code}`));
    for (const outlet of instructions.outlets) assert.ok(html.includes(`<li>${outlet.replace(/&/g, '&amp;')}</li>`), outlet);
  });

  it('formats zero-decimal currencies without a fraction', async () => {
    const p = await create({ channel: 'ewallet', currency: 'VND', amount: 1234567 });
    assert.ok((await page(String(p['id']))).text.includes('VND 1,234,567'));
  });

  it('renders a merchant name and description containing markup inert', async () => {
    const evil = await t.merchants.createMerchant(`<script>alert("merchant")</script>&<b>"'`, TEST_OPERATOR);
    const description = `</p><script>alert(1)</script><img src=x onerror=alert(2)>"><svg onload=alert(3)>`;
    const res = await t.call('POST', '/payment/create', { key: evil.sandbox.secret, body: quickStart({ description }) });
    assert.equal(res.statusCode, 201, res.body);
    const { html, text } = await page(String(json(res)['id']));
    // Exactly one script element (ours) and no element built from the input.
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.doesNotMatch(html, /<img|<svg onload|<b>/);
    assert.ok(html.includes('&lt;script&gt;alert(&quot;merchant&quot;)&lt;/script&gt;&amp;&lt;b&gt;&quot;&#39;'));
    assert.ok(html.includes('&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;'));
    // …and the person reads it back as the literal text.
    assert.ok(text.includes(`Pay to <script>alert("merchant")</script>&<b>"'`));
    assert.ok(text.includes(description));
    // The account holder (the merchant's name, from the provider) is escaped in attributes too.
    assert.doesNotMatch(html, /data-copy="[^"]*</);
  });

  it('shows only what the payer needs: no e-mail, metadata, reference or callback URL', async () => {
    const p = await create({
      email: 'secret.payer@example.com',
      metadata: { customer_id: 'cus_hidden_42' },
      callback_url: 'https://shop.example.com/hidden-callback',
    });
    const { html } = await page(String(p['id']));
    for (const hidden of ['secret.payer', 'cus_hidden_42', 'hidden-callback', String(p['reference_no']), t.a.id]) {
      assert.ok(!html.includes(hidden), `page must not contain ${hidden}`);
    }
    const status = await t.call('GET', `/pay/${String(p['id'])}/status`, { key: null });
    assert.deepEqual(Object.keys(json(status)).sort(), ['expires_at', 'id', 'state', 'status']);
  });

  it('answers unknown and malformed ids with an HTML 404 page, and the status document with a JSON 404', async () => {
    for (const id of ['pay_01M802HR5XTTXZAF0MA4G1EYJY', 'not-an-id', 'pay_<script>']) {
      const { res, text } = await page(encodeURIComponent(id));
      assert.equal(res.statusCode, 404, id);
      assertPageHeaders(res);
      assert.ok(text.includes('Payment not found'));
      assert.ok(!res.body.includes('<script>'), 'the id is never echoed');
      const status = await t.call('GET', `/pay/${encodeURIComponent(id)}/status`, { key: null });
      assert.equal(status.statusCode, 404);
      assert.equal(json(status)['code'], 'resource_not_found');
    }
  });

  it('shows terminal states with a clear message and no instructions to pay', async () => {
    const expectations: [PaymentStatus[], string, string][] = [
      [['succeeded'], 'succeeded', 'Payment received'],
      [['expired'], 'expired', 'This payment has expired'],
      [['canceled'], 'canceled', 'This payment was canceled'],
      [['failed'], 'failed', 'This payment could not be completed'],
      [['succeeded', 'reversed'], 'reversed', 'This payment was reversed'],
    ];
    for (const [path, state, title] of expectations) {
      const p = await create({ channel: 'bank' });
      const id = String(p['id']);
      for (const status of path) await moveTo(t.testStore.store, id, status, clock.now());
      const { res, html, text } = await page(id);
      assert.equal(res.statusCode, 200);
      assert.ok(text.includes(title), `${state}: ${text}`);
      assert.ok(html.includes(`data-state="${state}"`));
      assert.ok(!html.includes('id="instructions"'), `${state}: no instructions`);
      assert.ok(!text.includes(String((p['instructions'] as { account_number: string }).account_number)));
      assert.ok(!html.includes('http-equiv="refresh"'), `${state}: nothing left to wait for`);
      const status = json(await t.call('GET', `/pay/${id}/status`, { key: null }));
      assert.deepEqual([status['status'], status['state']], [path.at(-1), state]);
    }
  });

  it('treats a pending payment past its expiry as expired, and a processing one as being prepared', async () => {
    const localClock = new ManualClock(T0);
    const app = await createTestApp({ clock: localClock, testStore: t.testStore });
    try {
      const res = await app.call('POST', '/payment/create', { body: quickStart({ channel: 'ewallet' }) });
      const id = String(json(res)['id']);
      localClock.advance(30 * 60_000); // the sandbox e-wallet's 30-minute expiry
      const late = await app.call('GET', `/pay/${id}`, { key: null });
      assert.ok(visibleText(late.body).includes('This payment has expired'));
      assert.ok(!late.body.includes('id="qr"'), 'no QR code to scan after expiry');
      assert.equal(json(await app.call('GET', `/pay/${id}/status`, { key: null }))['state'], 'expired');

      const processing = await seedPayment(t.testStore.store, {
        merchantId: t.a.id,
        createdAt: localClock.now(),
        status: 'processing',
      });
      const preparing = await app.call('GET', `/pay/${processing.id}`, { key: null });
      assert.ok(visibleText(preparing.body).includes('Preparing your payment instructions'));
      assert.match(preparing.body, /http-equiv="refresh"/);
    } finally {
      await app.close();
    }
  });

  it('pages the production environment without the sandbox banner', async () => {
    const p = await create({ callback_url: 'https://shop.example.com/cb' }, t.a.productionKey);
    const { text } = await page(String(p['id']));
    assert.ok(!text.includes('Sandbox payment'));
    assert.ok(text.includes('Waiting for your payment'));
  });

  it('allows exactly its own inline script and style through the CSP hashes', async () => {
    const p = await create({});
    const { res, html } = await page(String(p['id']));
    const csp = String(res.headers['content-security-policy']);
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
    const script = /<script>([^]*?)<\/script>/.exec(html)?.[1];
    const style = /<style>([^]*?)<\/style>/.exec(html)?.[1];
    assert.ok(script !== undefined && style !== undefined);
    assert.ok(csp.includes(`script-src ${hash(script)}`));
    assert.ok(csp.includes(`style-src ${hash(style)}`));
    assert.doesNotMatch(html, /\sstyle="|\son[a-z]+=/, 'no inline style or handler attributes (the CSP would block them)');
  });
});
