import { createHash } from 'node:crypto';
import type { Environment } from '../../kernel/index.ts';
import type { Instructions } from '../../connectors/core/connector.ts';
import type { PayerPayment } from '../../modules/payments/payment-query-repo.ts';
import { isFinalForPayer, type PayerState } from '../../modules/payments/payer-status.ts';
import { html, htmlDocument, safeHref, type SafeHtml, trusted } from './html.ts';
import {
  formatAmount,
  formatDateTime,
  htmlLang,
  type Locale,
  LOCALE_SWITCH_STYLE,
  localeHeaders,
  localeSwitch,
} from './locale.ts';
import { PAY_PAGE_MESSAGES, type PayPageMessages } from './pay-page-messages.ts';

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
 *
 * Language: English or Indonesian, chosen per request by the route (`chooseLocale`); every word
 * comes from `PAY_PAGE_MESSAGES`, amounts and times from `locale.ts`. The script is the same
 * bytes in every language (its CSP hash): its few words arrive in `data-text-*` attributes.
 */

/** Polling cadence of the page script: brisk at first, then slower for a payer who left the tab open. */
const POLL_FAST_MS = 5_000;
const POLL_SLOW_MS = 30_000;
const POLL_FAST_FOR_MS = 10 * 60_000;
/** Without JavaScript, a non-final page reloads itself this often. */
export const NO_SCRIPT_REFRESH_SECONDS = 30;

/** The payer pages' stylesheet (the checkout page adds its own rules after it). */
export const PAYER_STYLE = `
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
${LOCALE_SWITCH_STYLE}
`.trim();

/*
 * Plain ES5-era browser script (no build step, no dependencies). It reads its inputs from data
 * attributes of <main> (escaped like any attribute), including its words in the page's language,
 * writes only with textContent, localises the expiry time with the page's own `lang`, and reloads
 * the page when the server's view of the payment changes, so there is one renderer: the server.
 * The checkout page runs the same text (same hash), with the same data attributes.
 */
export const PAYER_SCRIPT = `
(function () {
  'use strict';
  var root = document.getElementById('pay');
  if (!root) return;
  var statusUrl = root.getAttribute('data-status-url');
  var state = root.getAttribute('data-state');
  var final = root.getAttribute('data-final') === 'true';
  var expiresAt = Date.parse(root.getAttribute('data-expires-at') || '');
  var lang = document.documentElement.lang || undefined;
  var textTimeLeft = root.getAttribute('data-text-time-left') || '';
  var textTimeUp = root.getAttribute('data-text-time-up') || '';
  var textCopied = root.getAttribute('data-text-copied') || '';
  var startedAt = Date.now();
  var countdown = document.getElementById('countdown');
  var expiresText = document.getElementById('expires-text');
  if (expiresText && !isNaN(expiresAt)) {
    expiresText.textContent = new Date(expiresAt).toLocaleString(lang, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  }
  function pad(n) { return n < 10 ? '0' + n : String(n); }
  function tick() {
    if (!countdown || isNaN(expiresAt)) return;
    var s = Math.floor((expiresAt - Date.now()) / 1000);
    if (s <= 0) { countdown.textContent = textTimeUp; poll(); return; }
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    countdown.textContent = textTimeLeft + ': ' + (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(sec);
  }
  var buttons = document.querySelectorAll('button.copy');
  Array.prototype.forEach.call(buttons, function (b) {
    b.hidden = false;
    b.addEventListener('click', function () {
      var value = b.getAttribute('data-copy') || '';
      if (navigator.clipboard) navigator.clipboard.writeText(value).then(function () { b.textContent = textCopied; });
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
const STYLE_ELEMENT = trusted(`<style>${PAYER_STYLE}</style>`);
const SCRIPT_ELEMENT = trusted(`<script>${PAYER_SCRIPT}</script>`);

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Nothing loads but this page's own script and style (by hash) and polls to its own origin. */
export const PAY_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAYER_SCRIPT)}`,
  `style-src ${sha256(PAYER_STYLE)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/** Headers of every payer page answer (found or not), whatever its language; see `payPageHeaders`. */
export const PAYER_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': PAY_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

/** Headers of a pay page answer in `locale` (`PAYER_PAGE_HEADERS` plus the language's). */
export function payPageHeaders(locale: Locale): Readonly<Record<string, string>> {
  return { ...PAYER_PAGE_HEADERS, ...localeHeaders(locale) };
}

export interface PayPageInput {
  payment: PayerPayment;
  state: PayerState;
  now: Date;
  /** The e-wallet QR code, rendered by the route (async) before the page. */
  qr: SafeHtml | undefined;
  locale: Locale;
}

function copyButton(value: string, t: PayPageMessages): SafeHtml {
  // Hidden until the script shows it: without JavaScript there is nothing to click.
  return html`<button type="button" class="copy" data-copy="${value}" hidden>${t.copy}</button>`;
}

function steps(items: string[]): SafeHtml {
  return html`<ol>
    ${items.map((item) => html`<li>${item}</li>`)}
  </ol>`;
}

/** The instructions card of a payable payment, in the language of `t` (shared with the checkout page). */
export function instructionsSection(
  p: PayerPayment,
  instructions: Instructions,
  amount: string,
  qr: SafeHtml | undefined,
  t: PayPageMessages,
): SafeHtml {
  switch (instructions.type) {
    case 'virtual_account':
      return html`<section class="card" id="instructions" data-channel="bank">
        <h2>${t.bank.title}</h2>
        <dl>
          <dt>${t.bank.bank}</dt>
          <dd id="bank-name">${instructions.bank_name} (${instructions.bank_code})</dd>
          <dt>${t.bank.accountNumber}</dt>
          <dd>
            <span class="big" id="account-number">${instructions.account_number}</span>${copyButton(
              instructions.account_number,
              t,
            )}
          </dd>
          <dt>${t.bank.accountName}</dt>
          <dd id="account-holder">${instructions.account_holder_name}</dd>
          <dt>${t.amount}</dt>
          <dd><strong>${amount}</strong> ${t.exactly}</dd>
        </dl>
        ${steps(t.bank.steps({ bank: instructions.bank_name, holder: instructions.account_holder_name, amount }))}
      </section>`;
    case 'ewallet': {
      const checkout = safeHref(instructions.checkout_url, 'web');
      const deepLink = safeHref(instructions.deep_link, 'app');
      const provider = instructions.provider_name;
      return html`<section class="card" id="instructions" data-channel="ewallet">
        <h2>${t.ewallet.title(provider)}</h2>
        ${qr === undefined ? '' : html`<div class="qr" id="qr">${qr}</div>`}
        ${qr === undefined ? '' : html`<p>${t.ewallet.scan(provider)}</p>`}
        ${
          checkout === undefined
            ? ''
            : html`<a class="button" id="checkout-link" href="${checkout}" rel="noopener noreferrer"
                >${t.ewallet.payWith(amount, provider)}</a
              >`
        }
        ${
          deepLink === undefined
            ? ''
            : html`<a class="secondary" id="deep-link" href="${deepLink}" rel="noopener noreferrer"
                >${t.ewallet.openApp(provider)}</a
              >`
        }
      </section>`;
    }
    case 'counter':
      return html`<section class="card" id="instructions" data-channel="counter">
        <h2>${t.counter.title(instructions.partner_name)}</h2>
        <dl>
          <dt>${t.counter.paymentCode}</dt>
          <dd>
            <span class="big" id="payment-code">${instructions.payment_code}</span>${copyButton(instructions.payment_code, t)}
          </dd>
          <dt>${t.amount}</dt>
          <dd><strong>${amount}</strong> ${t.exactly}</dd>
          <dt>${t.counter.payAt}</dt>
          <dd>
            <ul class="outlets" id="outlets">
              ${instructions.outlets.map((o) => html`<li>${o}</li>`)}
            </ul>
          </dd>
        </dl>
        ${steps(t.counter.steps({ merchant: p.merchantName, partner: instructions.partner_name, amount }))}
      </section>`;
  }
}

/** What every payer page starts with: the language switch, the sandbox banner, who is paid and how much. */
export function payerHeader(o: {
  id: string;
  environment: Environment;
  merchantName: string;
  amount: string;
  description: string | null;
  locale: Locale;
}): SafeHtml {
  const t = PAY_PAGE_MESSAGES[o.locale];
  return html`${localeSwitch(o.locale, (l) => `/pay/${encodeURIComponent(o.id)}?lang=${l}`)}
    ${o.environment === 'sandbox' ? html`<p class="sandbox" id="sandbox-banner">${t.sandboxBanner}</p>` : ''}
    <section class="card">
      <p class="merchant">${t.payTo(html`<strong id="merchant-name">${o.merchantName}</strong>`)}</p>
      <p class="amount" id="amount">${o.amount}</p>
      ${o.description === null ? '' : html`<p class="description" id="description">${o.description}</p>`}
    </section>`;
}

/** "Pay before …" in the page's language, with the countdown the page script fills in. */
export function payBeforeSection(expiresAt: Date, locale: Locale): SafeHtml {
  return html`<section class="card">
    <p class="expiry">
      ${PAY_PAGE_MESSAGES[locale].payBefore}
      <time id="expires-at" datetime="${expiresAt.toISOString()}"
        ><span id="expires-text">${formatDateTime(expiresAt, locale)}</span></time
      ><span id="countdown"></span>
    </p>
  </section>`;
}

function layout(locale: Locale, title: string, head: SafeHtml | string, body: SafeHtml): string {
  return htmlDocument({ title, lang: htmlLang(locale), referrer: 'no-referrer', head: html`${STYLE_ELEMENT} ${head}`, body });
}

export function renderPayPage({ payment: p, state, now, qr, locale }: PayPageInput): string {
  const t = PAY_PAGE_MESSAGES[locale];
  const amount = formatAmount(p.amountMinor, p.currency, locale);
  const final = isFinalForPayer(state);
  const text = t.states[state];
  const instructions =
    state === 'payable' && p.instructions !== null ? instructionsSection(p, p.instructions, amount, qr, t) : '';
  const expiry = state === 'payable' ? payBeforeSection(p.expiresAt, locale) : '';
  const head = final ? '' : html`<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}" /></noscript>`;
  const checkedAt = html`<time id="checked-at" datetime="${now.toISOString()}">${formatDateTime(now, locale)}</time>`;
  const body = html`<main
      id="pay"
      data-status-url="/pay/${p.id}/status"
      data-state="${state}"
      data-final="${final ? 'true' : 'false'}"
      data-expires-at="${p.expiresAt.toISOString()}"
      data-text-time-left="${t.timeLeft}"
      data-text-time-up="${t.timeUp}"
      data-text-copied="${t.copied}"
    >
      ${payerHeader({ ...p, amount, locale })}
      <section class="card status state-${state}" id="status" role="status" aria-live="polite">
        <h1 id="status-title">${text.title}</h1>
        <p id="status-detail">${text.detail(p.merchantName)}</p>
      </section>
      ${instructions} ${expiry}
      <p class="foot">
        ${t.statusAsOf(checkedAt)}${
          final ? '' : html`<noscript>${t.reloadsEvery(NO_SCRIPT_REFRESH_SECONDS)}</noscript>`
        }.<br />${t.payment(p.id)}
      </p>
    </main>
    ${SCRIPT_ELEMENT}`;
  return layout(locale, `${text.title} · ${p.merchantName}`, head, body);
}

/**
 * The answer to an unknown or malformed id. Its switch links are relative (`?lang=…`): they keep
 * the requested path without the page ever echoing the id it was given.
 */
export function renderNotFoundPage(locale: Locale = 'en'): string {
  const t = PAY_PAGE_MESSAGES[locale].notFound;
  return layout(
    locale,
    t.title,
    '',
    html`<main>
      ${localeSwitch(locale, (l) => `?lang=${l}`)}
      <section class="card status state-failed">
        <h1>${t.title}</h1>
        <p>${t.detail}</p>
      </section>
    </main>`,
  );
}
