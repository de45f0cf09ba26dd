import { createHash } from 'node:crypto';
import type { Channel } from '../../kernel/index.ts';
import type { PayerCheckout } from '../../modules/checkouts/index.ts';
import { isFinalForPayer, payerState } from '../../modules/payments/index.ts';
import { CHECKOUT_PAGE_MESSAGES } from './checkout-page-messages.ts';
import { html, htmlDocument, safeHref, type SafeHtml, trusted } from './html.ts';
import { formatAmount, htmlLang, type Locale, localeHeaders, localeSwitch } from './locale.ts';
import { PAY_PAGE_MESSAGES } from './pay-page-messages.ts';
import {
  instructionsSection,
  payBeforeSection,
  payerHeader,
  NO_SCRIPT_REFRESH_SECONDS,
  PAYER_PAGE_HEADERS,
  PAYER_SCRIPT,
  PAYER_STYLE,
} from './pay-page.ts';

/**
 * The hosted checkout page (`GET /pay/cs_…`, docs/checkout.md section 7): the payer chooses a
 * method with one form post per choice (no JavaScript needed), then sees that payment's
 * instructions in place, drawn by the payment page's own renderer. It shares the payment page's
 * script (by hash: the same text) and adds a few styles; its CSP differs from the payment page's
 * only in allowing the form to post to this origin.
 */
const CHECKOUT_STYLE = `${PAYER_STYLE}
.methods h2{margin-top:1rem}
.methods h2:first-of-type{margin-top:0}
.methods ul{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
.method{display:flex;align-items:center;gap:.75rem;width:100%;min-height:3rem;padding:.6rem .75rem;font:inherit;text-align:left;color:var(--ink);background:#fff;border:1px solid var(--line);border-radius:10px;cursor:pointer}
.method:hover,.method:focus-visible{border-color:var(--accent);outline:2px solid var(--accent);outline-offset:1px}
.badge{flex:none;display:inline-flex;align-items:center;justify-content:center;width:2.75rem;height:2.75rem;border-radius:8px;color:#fff;font-weight:700;font-size:.8rem;letter-spacing:.02em}
.b0{background:#1f4fb8}.b1{background:#0b6e4f}.b2{background:#8a2c8f}.b3{background:#a33a00}.b4{background:#24506b}.b5{background:#6b4f00}
.notice{border-color:#f1b7b1;background:#fdf2f1;color:var(--bad)}
.again{display:block;text-align:center;margin:.5rem 0 1rem;color:var(--accent)}
label{display:block;font-weight:600;margin:0 0 .25rem}
.hint{margin:0 0 .5rem;color:var(--muted);font-size:.9rem}
input.amount-input{width:100%;font:inherit;font-size:1.25rem;padding:.6rem .75rem;border:1px solid var(--muted);border-radius:8px}
button.primary{display:block;width:100%;margin:1rem 0 0;padding:.75rem 1rem;font:inherit;font-weight:600;color:#fff;background:var(--accent);border:0;border-radius:8px;cursor:pointer}`;

/** How soon a page that shows a selection in progress looks again. */
const SELECTING_REFRESH_SECONDS = 2;

/** The checkout page's stylesheet element, which the payment-link page shares (same CSP). */
export const STYLE_ELEMENT = trusted(`<style>${CHECKOUT_STYLE}</style>`);
const SCRIPT_ELEMENT = trusted(`<script>${PAYER_SCRIPT}</script>`);
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * As the payment page's policy, except that its one form may post back to this origin. The
 * payment-link page (link-page.ts) answers with it too: the same styles, one form.
 */
export const CHECKOUT_PAGE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(PAYER_SCRIPT)}`,
  `style-src ${sha256(CHECKOUT_STYLE)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/** Headers of the checkout and payment-link pages in `locale`. */
export function checkoutPageHeaders(locale: Locale): Readonly<Record<string, string>> {
  return { ...PAYER_PAGE_HEADERS, 'Content-Security-Policy': CHECKOUT_PAGE_CSP, ...localeHeaders(locale) };
}

/** A method's badge: its code when short (BCA, DANA), else its first two letters; a stable colour. */
function badge(code: string): SafeHtml {
  const text = code.length <= 4 ? code : code.slice(0, 2);
  let hash = 0;
  for (const ch of code) hash = (hash * 31 + ch.charCodeAt(0)) % 6;
  return html`<span class="badge b${hash}" aria-hidden="true">${text}</span>`;
}

export interface CheckoutPageInput {
  view: PayerCheckout;
  now: Date;
  locale: Locale;
  qr: SafeHtml | undefined;
  notice: { code: string } | undefined;
}

function methodList(view: PayerCheckout, locale: Locale): SafeHtml {
  const t = CHECKOUT_PAGE_MESSAGES[locale];
  const c = view.checkout;
  if (view.methods.length === 0) return html`<section class="card notice" id="no-methods"><p>${t.noMethods}</p></section>`;
  const group = (channel: Channel, instruments: { code: string; name: string }[]) =>
    html`<h2 id="channel-${channel}">${t.channels[channel]}</h2>
      <ul aria-labelledby="channel-${channel}">
        ${instruments.map(
          (i) =>
            html`<li>
              <button class="method" type="submit" name="method" value="${channel}:${i.code}">
                ${badge(i.code)}<span>${i.name}</span>
              </button>
            </li>`,
        )}
      </ul>`;
  return html`<section class="card methods" id="methods">
    <form method="post" action="/pay/${c.id}/select">
      <input type="hidden" name="version" value="${String(c.version)}" />
      <input type="hidden" name="lang" value="${locale}" />
      ${view.methods.map((m) => group(m.channel, m.instruments))}
    </form>
  </section>`;
}

/** The title and detail of the status card for each page state but `paying` (the payment's own). */
function statusText(view: PayerCheckout, locale: Locale): { title: string; detail: string } {
  const t = CHECKOUT_PAGE_MESSAGES[locale];
  switch (view.state) {
    case 'completed':
      return { title: t.completed.title, detail: t.completed.detail(view.merchantName) };
    case 'expired':
      return { title: t.expired.title, detail: t.expired.detail(view.merchantName) };
    case 'selecting':
      return t.selecting;
    default:
      return t.choose;
  }
}

export function renderCheckoutPage({ view, now, locale, qr, notice }: CheckoutPageInput): string {
  const t = CHECKOUT_PAGE_MESSAGES[locale];
  const payText = PAY_PAGE_MESSAGES[locale];
  const c = view.checkout;
  const amount = formatAmount(c.amountMinor, c.currency, locale);
  const payment = view.state === 'paying' ? view.payment : undefined;
  const paymentState = payment === undefined ? undefined : payerState(payment, now);
  // The chosen payment's instructions may close before the checkout does: the earlier one counts.
  const payBefore = payment !== undefined && payment.expiresAt < c.expiresAt ? payment.expiresAt : c.expiresAt;
  const text =
    paymentState === undefined
      ? statusText(view, locale)
      : {
          title: payText.states[paymentState].title,
          detail: payText.states[paymentState].detail(view.merchantName),
        };
  const stateClass = {
    completed: 'succeeded',
    expired: 'expired',
    selecting: 'preparing',
    choosing: 'choosing',
    paying: paymentState ?? 'payable',
  }[view.state];
  const final = view.state === 'completed' || view.state === 'expired';
  const back = (url: string | null, label: string, id = 'return-link', kind = 'button') => {
    const href = url === null ? undefined : safeHref(url, 'web');
    return href === undefined ? '' : html`<a class="${kind}" id="${id}" href="${href}" rel="noopener noreferrer">${label}</a>`;
  };
  const instructions =
    payment?.instructions != null && paymentState === 'payable'
      ? instructionsSection(payment, payment.instructions, amount, qr, payText)
      : '';
  // A selection is seconds away from done: reload soon, with or without JavaScript. The paying
  // page's script polls; without it, the page reloads like the payment page.
  const head =
    view.state === 'selecting'
      ? html`<meta http-equiv="refresh" content="${SELECTING_REFRESH_SECONDS}" />`
      : view.state === 'paying'
        ? html`<noscript><meta http-equiv="refresh" content="${NO_SCRIPT_REFRESH_SECONDS}" /></noscript>`
        : '';
  const body = html`<main
      id="pay"
      data-status-url="${payment === undefined ? '' : `/pay/${payment.id}/status`}"
      data-state="${paymentState ?? view.state}"
      data-final="${payment === undefined || isFinalForPayer(paymentState ?? 'expired') ? 'true' : 'false'}"
      data-expires-at="${payBefore.toISOString()}"
      data-text-time-left="${payText.timeLeft}"
      data-text-time-up="${payText.timeUp}"
      data-text-copied="${payText.copied}"
    >
      ${payerHeader({ id: c.id, environment: c.environment, merchantName: view.merchantName, amount, description: c.description, locale })}
      ${notice === undefined ? '' : html`<section class="card notice" id="notice" role="alert"><p>${t.refused(notice.code)}</p></section>`}
      <section
        class="card status state-${stateClass}"
        id="status"
        role="status"
        aria-live="polite"
        data-checkout-state="${view.state}"
      >
        <h1 id="status-title">${text.title}</h1>
        <p id="status-detail">${text.detail}</p>
        ${view.state === 'completed' ? back(c.successUrl, t.completed.back(view.merchantName)) : ''}
        ${view.state === 'expired' ? back(c.cancelUrl, t.expired.back(view.merchantName)) : ''}
      </section>
      ${view.state === 'choosing' ? methodList(view, locale) : ''} ${instructions}
      ${view.state === 'paying' ? html`<a class="again" id="choose-another" href="/pay/${c.id}?choose=1&amp;lang=${locale}">${t.chooseAnother}</a>` : ''}
      ${final ? '' : payBeforeSection(payBefore, locale)}
      ${view.state === 'choosing' ? back(c.cancelUrl, t.cancel(view.merchantName), 'cancel-link', 'secondary') : ''}
      <p class="foot">${t.checkout(c.id)}</p>
    </main>
    ${SCRIPT_ELEMENT}`;
  return htmlDocument({
    title: `${text.title} · ${view.merchantName}`,
    lang: htmlLang(locale),
    referrer: 'no-referrer',
    head: html`${STYLE_ELEMENT} ${head}`,
    body,
  });
}

export function renderCheckoutNotFound(locale: Locale): string {
  const t = CHECKOUT_PAGE_MESSAGES[locale].notFound;
  return htmlDocument({
    title: t.title,
    lang: htmlLang(locale),
    referrer: 'no-referrer',
    head: STYLE_ELEMENT,
    body: html`<main>
      ${localeSwitch(locale, (l) => `?lang=${l}`)}
      <section class="card status state-failed">
        <h1>${t.title}</h1>
        <p>${t.detail}</p>
      </section>
    </main>`,
  });
}
