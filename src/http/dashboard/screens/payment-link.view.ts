import type { ErrorDetail } from '../../../lib/error-catalogue.ts';
import { type PaymentLink, type PaymentLinkSummary, paymentLinkStatus } from '../../../modules/payment-links/index.ts';
import { html, safeHref, type SafeHtml } from '../../pages/html.ts';
import { COPY_SCRIPT_ELEMENT, csrfField, type Frame, money, type Notice, page, status, when } from '../dashboard-layout.ts';

/**
 * What the payment-link screens show (docs/dashboard.md): amounts from the stored minor units
 * (bigint), never through the API's JSON numbers; uses and totals from the module's summary.
 */

/** A fixed amount, or the bounds a payer enters an amount between. */
export function linkAmount(l: PaymentLink): string {
  return l.amount.kind === 'fixed'
    ? money(l.amount.amountMinor, l.currency)
    : `${money(l.amount.minMinor, l.currency)} – ${money(l.amount.maxMinor, l.currency)}`;
}

/** Uses left now (a use is held by a completed or open checkout), of the maximum; or unlimited. */
export function linkUses(l: PaymentLink, s: PaymentLinkSummary): string {
  return l.maxUses === null ? 'unlimited' : `${String(Math.max(0, l.maxUses - s.held))} of ${String(l.maxUses)} left`;
}

/** Field problems as the API reports them (`details`), keyed by field for the form's inline messages. */
export function issuesByField(details: readonly ErrorDetail[]): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  for (const d of details) {
    const field = typeof d['field'] === 'string' ? d['field'] : '';
    const message = typeof d['message'] === 'string' ? d['message'] : typeof d['issue'] === 'string' ? d['issue'] : '';
    if (message === '') continue;
    byField.set(field, [...(byField.get(field) ?? []), message]);
  }
  return byField;
}

function fact(label: string, value: SafeHtml | string | null, id = ''): SafeHtml | string {
  if (value === null) return '';
  return html`<dt>${label}</dt>
    <dd ${id === '' ? '' : html`id="${id}"`}>${value}</dd>`;
}

function facts(l: PaymentLink, s: PaymentLinkSummary, now: Date): SafeHtml {
  return html`<dl class="facts" id="link-facts">
    ${fact('Status', status(paymentLinkStatus(l, now)), 'link-status')}
    ${fact(l.amount.kind === 'fixed' ? 'Amount' : 'Payer enters', linkAmount(l), 'link-amount')}
    ${fact('Description', l.description)} ${fact('Uses', linkUses(l, s), 'link-uses')}
    ${fact('Checkouts', `${String(s.open)} open, ${String(s.completed)} completed, ${String(s.expired)} expired`, 'link-checkouts')}
    ${fact('Collected', `${money(s.collectedMinor, l.currency)} (${String(s.completed)} completed)`, 'link-collected')}
    ${fact('Channels', l.channels === null ? 'every channel that can serve the amount' : l.channels.join(', '))}
    ${fact('Expires', l.expiresAt === null ? 'never' : when(l.expiresAt), 'link-expires')}
    ${fact('Each checkout open for', `${String(Math.round(l.checkoutExpiresInSeconds / 60))} min`)}
    ${fact('Success URL', l.successUrl === null ? null : html`<code>${l.successUrl}</code>`)}
    ${fact('Cancel URL', l.cancelUrl === null ? null : html`<code>${l.cancelUrl}</code>`)} ${fact('Created', when(l.createdAt))}
    ${fact('Deactivated', l.deactivatedAt === null ? null : when(l.deactivatedAt))}
  </dl>`;
}

function shareCard(l: PaymentLink, url: string, qr: SafeHtml | undefined, active: boolean): SafeHtml {
  const href = safeHref(url, 'web');
  return html`<section class="card" id="link-share">
    <h2>Share</h2>
    ${active ? '' : html`<p class="muted" id="link-not-taking">This link takes no more payments.</p>`}
    <div class="link-url">
      <code id="link-url">${url}</code>
      <button type="button" class="copy secondary" id="copy-link" data-copy="${url}" data-copied="Copied" hidden>
        Copy link
      </button>
      ${href === undefined ? '' : html`<a href="${href}" rel="noopener noreferrer" id="open-link">Open</a>`}
    </div>
    ${
      qr === undefined
        ? html`<p class="muted">The URL is too long for a QR code.</p>`
        : html`<figure class="qr" id="link-qr">
            ${qr}
            <figcaption>Scanning it opens ${l.id}'s page.</figcaption>
          </figure>`
    }
  </section>`;
}

function deactivateForm(frame: Frame, l: PaymentLink): SafeHtml | string {
  if (!l.active || !frame.may('payment_links.manage')) return '';
  return html`<section class="card">
    <h2>Deactivate</h2>
    <p class="muted">
      The link stops taking payments, for good. Checkouts it already made stay payable until they complete or expire.
    </p>
    <form class="inline" method="post" action="/dashboard/payment-links/${l.id}/deactivate" id="deactivate-form">
      ${csrfField(frame.csrfToken)}
      <button type="submit" class="danger" id="deactivate-submit">Deactivate link</button>
    </form>
  </section>`;
}

/** One link: how to share it (URL, copy button, QR code), its numbers, and Deactivate. */
export function paymentLinkPage(
  frame: Frame,
  l: PaymentLink,
  s: PaymentLinkSummary,
  o: { url: string; qr: SafeHtml | undefined; now: Date; notice: Notice },
): string {
  const active = paymentLinkStatus(l, o.now) === 'active';
  return page(
    frame,
    `Payment link ${l.id}`,
    o.notice,
    html`${shareCard(l, o.url, o.qr, active)}
      <section class="card">${facts(l, s, o.now)}</section>
      ${deactivateForm(frame, l)} ${COPY_SCRIPT_ELEMENT}`,
  );
}
