import type { LinkAvailability, PaymentLink } from '../../modules/payment-links/index.ts';
import { STYLE_ELEMENT } from './checkout-page.ts';
import { html, htmlDocument, type SafeHtml } from './html.ts';
import { LINK_PAGE_MESSAGES } from './link-page-messages.ts';
import { formatAmount, htmlLang, type Locale, localeSwitch } from './locale.ts';
import { PAY_PAGE_MESSAGES } from './pay-page-messages.ts';

/**
 * The public page of a payment link (`GET /pay/plink_…`, docs/checkout.md section 8): what the
 * merchant asks for, and one form that starts a checkout (a visit is that post, never the GET: a
 * chat app's link preview must not use up a link). The form carries a visit token, so posting it
 * twice makes one checkout. Same styles and CSP as the checkout page; no script.
 */
export interface LinkPageInput {
  link: PaymentLink;
  merchantName: string;
  availability: LinkAvailability;
  locale: Locale;
  visitToken: string;
  notice?: { code: string; issue: string | undefined } | undefined;
  /** What the payer typed, shown again after a refusal. */
  amountText?: string | undefined;
}

function page(locale: Locale, title: string, body: SafeHtml): string {
  return htmlDocument({ title, lang: htmlLang(locale), referrer: 'no-referrer', head: STYLE_ELEMENT, body });
}

export function renderLinkPage(o: LinkPageInput): string {
  const t = LINK_PAGE_MESSAGES[o.locale];
  const payText = PAY_PAGE_MESSAGES[o.locale];
  const l = o.link;
  const money = (minor: bigint) => formatAmount(minor, l.currency, o.locale);
  const bounds = l.amount.kind === 'payer_entered' ? { min: money(l.amount.minMinor), max: money(l.amount.maxMinor) } : undefined;
  const amountField =
    l.amount.kind === 'fixed' || bounds === undefined
      ? ''
      : html`<label for="amount">${t.enterAmount} (${l.currency})</label>
          <p class="hint" id="amount-hint">${t.between(bounds.min, bounds.max)}</p>
          <input
            class="amount-input"
            id="amount"
            name="amount"
            type="text"
            inputmode="decimal"
            autocomplete="transaction-amount"
            required
            maxlength="32"
            aria-describedby="amount-hint"
            value="${o.amountText ?? ''}"
          />`;
  const body =
    o.availability === 'available'
      ? html`<section class="card">
          <form method="post" action="/pay/${l.id}/start">
            <input type="hidden" name="visit" value="${o.visitToken}" />
            <input type="hidden" name="lang" value="${o.locale}" />
            ${amountField}
            <button class="primary" type="submit" id="continue">${t.continue}</button>
          </form>
        </section>`
      : html`<section class="card status state-expired" id="status" role="status">
          <h1 id="status-title">${t.unavailable[o.availability].title}</h1>
          <p>${t.unavailable[o.availability].detail(o.merchantName)}</p>
        </section>`;
  return page(
    o.locale,
    `${t.title} · ${o.merchantName}`,
    html`<main id="link" data-availability="${o.availability}">
      ${localeSwitch(o.locale, (locale) => `/pay/${encodeURIComponent(l.id)}?lang=${locale}`)}
      ${l.environment === 'sandbox' ? html`<p class="sandbox" id="sandbox-banner">${payText.sandboxBanner}</p>` : ''}
      <section class="card">
        <p class="merchant">${payText.payTo(html`<strong id="merchant-name">${o.merchantName}</strong>`)}</p>
        ${l.amount.kind === 'fixed' ? html`<p class="amount" id="amount-fixed">${money(l.amount.amountMinor)}</p>` : ''}
        ${l.description === null ? '' : html`<p class="description" id="description">${l.description}</p>`}
      </section>
      ${
        o.notice === undefined
          ? ''
          : html`<section class="card notice" id="notice" role="alert">
              <p>${t.refused(o.notice.code, o.notice.issue, bounds)}</p>
            </section>`
      }
      ${body}
      <p class="foot">${t.link(l.id)}</p>
    </main>`,
  );
}

export function renderLinkNotFound(locale: Locale): string {
  const t = LINK_PAGE_MESSAGES[locale].notFound;
  return page(
    locale,
    t.title,
    html`<main>
      ${localeSwitch(locale, (l) => `?lang=${l}`)}
      <section class="card status state-failed">
        <h1>${t.title}</h1>
        <p>${t.detail}</p>
      </section>
    </main>`,
  );
}
