import { createHash } from 'node:crypto';
import type { Instructions } from '../../connectors/core/connector.ts';
import { formatHumanAmount } from '../../lib/money-display.ts';
import type { PayerPayment } from '../../modules/payments/payment-query-repo.ts';
import { isFinalForPayer, type PayerState } from '../../modules/payments/payer-status.ts';
import { html, htmlDocument, safeHref, type SafeHtml, trusted } from './html.ts';

/**
 * The hosted payer page (`GET /pay/{id}`): server-rendered HTML that carries everything essential
 * without JavaScript (instructions, amount, expiry time, status as of loading, a meta refresh).
 * A small script adds a live countdown, copy buttons and status polling.
 *
 * Security: every value is escaped by the `html` template; the Content-Security-Policy allows no
 * source at all except this exact script and style (by hash) and `fetch` to our own origin; no
 * third-party request is ever made (the QR code is rendered on the server as inline SVG); the
 * page shows only what the payer needs (no e-mail, metadata, reference or callback URL), and
 * `Referrer-Policy: no-referrer` keeps the page's URL (the capability) out of other sites' logs.
 */

/** Polling cadence of the page script: brisk at first, then slower for a payer who left the tab open. */
const POLL_FAST_MS = 5_000;
const POLL_SLOW_MS = 30_000;
const POLL_FAST_FOR_MS = 10 * 60_000;
/** Without JavaScript, a non-final page reloads itself this often. */
const NO_SCRIPT_REFRESH_SECONDS = 30;

const STYLE = `
:root{color-scheme:light;--ink:#1a1f36;--muted:#5e6577;--line:#e3e6ee;--accent:#2546d0;--ok:#137a3a;--bad:#b42318;--warn:#8a5a00}
*{box-sizing:border-box}
body{margin:0;background:#f4f6fb;color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:34rem;margin:0 auto;padding:1rem}
.card{background:#fff;border:1px solid var(--line);border-radius:12px;padding:1.25rem;margin:0 0 1rem}
.sandbox{background:#fff4d6;border:1px solid #f0d48a;color:var(--warn);border-radius:8px;padding:.5rem .75rem;margin:0 0 1rem;font-size:.9rem}
.merchant{margin:0;color:var(--muted)}
.amount{margin:.25rem 0 0;font-size:2rem;font-weight:700;letter-spacing:-.01em}
.description{margin:.5rem 0 0;color:var(--muted);overflow-wrap:anywhere}
h1{font-size:1.25rem;margin:0 0 .25rem}
h2{font-size:1.1rem;margin:0 0 .75rem}
.status p{margin:0}
.state-succeeded{border-color:#9fd8b2;background:#effaf3}
.state-succeeded h1{color:var(--ok)}
.state-expired,.state-failed,.state-canceled,.state-reversed{border-color:#f1b7b1;background:#fdf2f1}
.state-expired h1,.state-failed h1,.state-canceled h1,.state-reversed h1{color:var(--bad)}
dl{margin:0;display:grid;grid-template-columns:max-content 1fr;gap:.5rem 1rem;align-items:baseline}
dt{color:var(--muted)}
dd{margin:0;overflow-wrap:anywhere}
.big{font:600 1.35rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.06em}
button.copy{margin-left:.5rem;font:inherit;font-size:.85rem;padding:.15rem .6rem;border:1px solid var(--line);border-radius:6px;background:#fff;color:var(--accent);cursor:pointer}
.qr{display:flex;justify-content:center;margin:.5rem 0 1rem}
.qr svg{width:240px;height:240px;max-width:100%}
a.button{display:block;text-align:center;background:var(--accent);color:#fff;text-decoration:none;font-weight:600;padding:.75rem 1rem;border-radius:8px;margin:.5rem 0}
a.secondary{display:block;text-align:center;color:var(--accent);margin:.25rem 0}
ol{margin:1rem 0 0;padding-left:1.25rem;color:var(--muted)}
ul.outlets{margin:0;padding-left:1.1rem}
.expiry{margin:0}
#countdown{display:block;font-weight:600}
.foot{color:var(--muted);font-size:.8rem;text-align:center;overflow-wrap:anywhere}
`.trim();

/*
 * Plain ES5-era browser script (no build step, no dependencies). It reads its inputs from data
 * attributes of <main> (escaped like any attribute), writes only with textContent, and reloads
 * the page when the server's view of the payment changes, so there is one renderer: the server.
 */
const SCRIPT = `
(function () {
  'use strict';
  var root = document.getElementById('pay');
  if (!root) return;
  var statusUrl = root.getAttribute('data-status-url');
  var state = root.getAttribute('data-state');
  var final = root.getAttribute('data-final') === 'true';
  var expiresAt = Date.parse(root.getAttribute('data-expires-at') || '');
  var startedAt = Date.now();
  var countdown = document.getElementById('countdown');
  var expiresText = document.getElementById('expires-text');
  if (expiresText && !isNaN(expiresAt)) {
    expiresText.textContent = new Date(expiresAt).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  }
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function tick() {
    if (!countdown || isNaN(expiresAt)) return;
    var s = Math.floor((expiresAt - Date.now()) / 1000);
    if (s <= 0) { countdown.textContent = 'Time is up'; poll(); return; }
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    countdown.textContent = 'Time left: ' + (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(sec);
  }
  var buttons = document.querySelectorAll('button.copy');
  Array.prototype.forEach.call(buttons, function (b) {
    b.hidden = false;
    b.addEventListener('click', function () {
      var value = b.getAttribute('data-copy') || '';
      if (navigator.clipboard) navigator.clipboard.writeText(value).then(function () { b.textContent = 'Copied'; });
    });
  });
  var inflight = false;
  function poll() {
    if (final || inflight || !statusUrl) return;
    inflight = true;
    fetch(statusUrl, { cache: 'no-store', credentials: 'omit', headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) {
        inflight = false;
        if (s && s.state !== state) { final = true; window.location.reload(); }
      })
      .catch(function () { inflight = false; });
  }
  if (countdown && !final) { tick(); setInterval(tick, 1000); }
  if (!final) {
    (function schedule() {
      var fast = Date.now() - startedAt < ${POLL_FAST_FOR_MS};
      setTimeout(function () { poll(); schedule(); }, fast ? ${POLL_FAST_MS} : ${POLL_SLOW_MS});
    })();
    document.addEventListener('visibilitychange', function () { if (document.visibilityState === 'visible') poll(); });
    window.addEventListener('focus', poll);
  }
})();
`.trim();

// Whole elements, built here rather than in a template, so that formatting the templates can never
// add a byte inside them: the CSP allows exactly these texts by hash.
const STYLE_ELEMENT = trusted(`<style>${STYLE}</style>`);
const SCRIPT_ELEMENT = trusted(`<script>${SCRIPT}</script>`);

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Nothing loads but this page's own script and style (by hash) and polls to its own origin. */
export const PAY_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/** Headers of every payer page answer (found or not). */
export const PAY_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': PAY_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "21 Nov 2026, 22:14 UTC": unambiguous without knowing the payer's time zone (the script localises it). */
export function formatUtc(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

const STATE_TEXT: Record<PayerState, { title: string; detail: (merchant: string) => string }> = {
  preparing: {
    title: 'Preparing your payment instructions',
    detail: () => 'This takes a few seconds. This page updates by itself.',
  },
  payable: {
    title: 'Waiting for your payment',
    detail: () => 'Follow the instructions below. This page updates when the payment arrives.',
  },
  expired: {
    title: 'This payment has expired',
    detail: (m) => `Do not pay these instructions any more. Ask ${m} for a new payment.`,
  },
  succeeded: {
    title: 'Payment received',
    detail: (m) => `Thank you. Your payment to ${m} is complete; you can close this page.`,
  },
  failed: { title: 'This payment could not be completed', detail: (m) => `Do not pay. Contact ${m} if you need help.` },
  canceled: { title: 'This payment was canceled', detail: (m) => `${m} canceled this payment. Do not pay.` },
  reversed: {
    title: 'This payment was reversed',
    detail: (m) => `The payment was returned by the provider. Contact ${m} if you have questions.`,
  },
};

export interface PayPageInput {
  payment: PayerPayment;
  state: PayerState;
  now: Date;
  /** The e-wallet QR code, rendered by the route (async) before the page. */
  qr: SafeHtml | undefined;
}

function copyButton(value: string): SafeHtml {
  // Hidden until the script shows it: without JavaScript there is nothing to click.
  return html`<button type="button" class="copy" data-copy="${value}" hidden>Copy</button>`;
}

function instructionsSection(p: PayerPayment, instructions: Instructions, amount: string, qr: SafeHtml | undefined): SafeHtml {
  switch (instructions.type) {
    case 'virtual_account':
      return html`<section class="card" id="instructions" data-channel="bank">
        <h2>Transfer to this virtual account</h2>
        <dl>
          <dt>Bank</dt>
          <dd id="bank-name">${instructions.bank_name} (${instructions.bank_code})</dd>
          <dt>Account number</dt>
          <dd>
            <span class="big" id="account-number">${instructions.account_number}</span>${copyButton(instructions.account_number)}
          </dd>
          <dt>Account name</dt>
          <dd id="account-holder">${instructions.account_holder_name}</dd>
          <dt>Amount</dt>
          <dd><strong>${amount}</strong> (exactly)</dd>
        </dl>
        <ol>
          <li>Open your ${instructions.bank_name} app, internet banking or an ATM.</li>
          <li>Choose a transfer to a virtual account and enter the account number above.</li>
          <li>Check that the account name is ${instructions.account_holder_name} and pay exactly ${amount}.</li>
        </ol>
      </section>`;
    case 'ewallet': {
      const checkout = safeHref(instructions.checkout_url, 'web');
      const deepLink = safeHref(instructions.deep_link, 'app');
      return html`<section class="card" id="instructions" data-channel="ewallet">
        <h2>Pay with ${instructions.provider_name}</h2>
        ${qr === undefined ? '' : html`<div class="qr" id="qr">${qr}</div>`}
        ${qr === undefined ? '' : html`<p>Scan this code with the ${instructions.provider_name} app, or use a button below.</p>`}
        ${checkout === undefined ? '' : html`<a class="button" id="checkout-link" href="${checkout}" rel="noopener noreferrer">Pay ${amount} with ${instructions.provider_name}</a>`}
        ${deepLink === undefined ? '' : html`<a class="secondary" id="deep-link" href="${deepLink}" rel="noopener noreferrer">Open the ${instructions.provider_name} app</a>`}
      </section>`;
    }
    case 'counter':
      return html`<section class="card" id="instructions" data-channel="counter">
        <h2>Pay in cash at ${instructions.partner_name}</h2>
        <dl>
          <dt>Payment code</dt>
          <dd><span class="big" id="payment-code">${instructions.payment_code}</span>${copyButton(instructions.payment_code)}</dd>
          <dt>Amount</dt>
          <dd><strong>${amount}</strong> (exactly)</dd>
          <dt>Pay at</dt>
          <dd>
            <ul class="outlets" id="outlets">
              ${instructions.outlets.map((o) => html`<li>${o}</li>`)}
            </ul>
          </dd>
        </dl>
        <ol>
          <li>Go to any of the outlets above before the time below.</li>
          <li>At the cashier, ask to pay a payment code for ${p.merchantName} (${instructions.partner_name}).</li>
          <li>Show or read out the payment code and pay exactly ${amount}. Keep the receipt.</li>
        </ol>
      </section>`;
  }
}

function layout(title: string, head: SafeHtml | string, body: SafeHtml): string {
  return htmlDocument({ title, referrer: 'no-referrer', head: html`${STYLE_ELEMENT} ${head}`, body });
}

export function renderPayPage({ payment: p, state, now, qr }: PayPageInput): string {
  const amount = formatHumanAmount(p.amountMinor, p.currency);
  const final = isFinalForPayer(state);
  const text = STATE_TEXT[state];
  const instructions = state === 'payable' && p.instructions !== null ? instructionsSection(p, p.instructions, amount, qr) : '';
  const expiry =
    state === 'payable'
      ? html`<section class="card">
          <p class="expiry">
            Pay before
            <time id="expires-at" datetime="${p.expiresAt.toISOString()}"
              ><span id="expires-text">${formatUtc(p.expiresAt)}</span></time
            ><span id="countdown"></span>
          </p>
        </section>`
      : '';
  const head = final ? '' : html`<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}" /></noscript>`;
  const body = html`<main
      id="pay"
      data-status-url="/pay/${p.id}/status"
      data-state="${state}"
      data-final="${final ? 'true' : 'false'}"
      data-expires-at="${p.expiresAt.toISOString()}"
    >
      ${p.environment === 'sandbox' ? html`<p class="sandbox" id="sandbox-banner">Sandbox payment: no real money moves.</p>` : ''}
      <section class="card">
        <p class="merchant">Pay to <strong id="merchant-name">${p.merchantName}</strong></p>
        <p class="amount" id="amount">${amount}</p>
        ${p.description === null ? '' : html`<p class="description" id="description">${p.description}</p>`}
      </section>
      <section class="card status state-${state}" id="status" role="status" aria-live="polite">
        <h1 id="status-title">${text.title}</h1>
        <p id="status-detail">${text.detail(p.merchantName)}</p>
      </section>
      ${instructions} ${expiry}
      <p class="foot">
        Status as of
        <time id="checked-at" datetime="${now.toISOString()}">${formatUtc(now)}</time
        >${final ? '' : html`<noscript>; this page reloads every ${NO_SCRIPT_REFRESH_SECONDS} seconds</noscript>`}.<br />Payment
        ${p.id}
      </p>
    </main>
    ${SCRIPT_ELEMENT}`;
  return layout(`${text.title} · ${p.merchantName}`, head, body);
}

export function renderNotFoundPage(): string {
  return layout(
    'Payment not found',
    '',
    html`<main>
      <section class="card status state-failed">
        <h1>Payment not found</h1>
        <p>Check the link you were given, or ask the merchant for a new one.</p>
      </section>
    </main>`,
  );
}
