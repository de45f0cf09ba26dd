import type { Checkout } from '../../../modules/checkouts/index.ts';
import type { CheckoutTimeline, CheckoutTimelineEntry } from '../../../modules/timeline/checkout-timeline.ts';
import { html, safeHref, type SafeHtml } from '../../pages/html.ts';
import { csrfField, type Frame, money, type Notice, page, status, when } from '../dashboard-layout.ts';
import { deliveryItem } from './payment-detail.view.ts';

/**
 * The checkout screen's page: the checkout's fields, the Expire form while it is open, its
 * payments in the order the payer's selections made them, and its timeline.
 */

const paymentLink = (id: string) => html`<a class="mono" href="/dashboard/payments/${id}">${id}</a>`;

/** A `<dt>`/`<dd>` pair, left out when there is nothing to show. */
function fact(label: string, value: SafeHtml | string | null, id = ''): SafeHtml | string {
  if (value === null) return '';
  return html`<dt>${label}</dt>
    <dd ${id === '' ? '' : html`id="${id}"`}>${value}</dd>`;
}

/** The payer's page of the checkout (the API's `url`), a link when it is an http(s) address. */
function hostedPage(publicBaseUrl: string, checkoutId: string): SafeHtml | string {
  const url = `${publicBaseUrl}/pay/${checkoutId}`;
  const href = safeHref(url, 'web');
  return href === undefined ? url : html`<a href="${href}" rel="noopener noreferrer">${href}</a>`;
}

function facts(c: Checkout, publicBaseUrl: string): SafeHtml {
  const metadata = Object.entries(c.metadata);
  return html`<dl class="facts" id="checkout-facts">
    ${fact('Status', status(c.status), 'checkout-status')} ${fact('Amount', money(c.amountMinor, c.currency), 'checkout-amount')}
    ${fact('Reference', c.referenceNo, 'checkout-reference')} ${fact('Description', c.description)}
    ${fact('Payer e-mail', c.email)} ${fact('Channels offered', c.channels.join(', '))}
    ${fact('Current payment', c.currentPaymentId === null ? '—' : paymentLink(c.currentPaymentId), 'checkout-current-payment')}
    ${fact('Completed by', c.completedPaymentId === null ? null : paymentLink(c.completedPaymentId))}
    ${fact('Created', when(c.createdAt))} ${fact('Expires', when(c.expiresAt))}
    ${fact('Closed', c.closedAt === null ? null : when(c.closedAt))} ${fact('Hosted page', hostedPage(publicBaseUrl, c.id))}
    ${fact('Success URL', c.successUrl === null ? null : html`<code>${c.successUrl}</code>`)}
    ${fact('Cancel URL', c.cancelUrl === null ? null : html`<code>${c.cancelUrl}</code>`)}
    ${fact('Callback URL', c.callbackUrl === null ? null : html`<code>${c.callbackUrl}</code>`)}
    ${fact('Metadata', metadata.length === 0 ? null : html`${metadata.map(([k, v]) => html`<code>${k}=${v}</code> `)}`)}
  </dl>`;
}

function expireForm(frame: Frame, c: Checkout): SafeHtml | string {
  if (c.status !== 'open' || !frame.may('checkouts.expire')) return '';
  return html`<section class="card">
    <h2>Expire</h2>
    <p class="muted">Ends the checkout now: the payer can no longer choose a method, and its pending payment is canceled.</p>
    <form class="inline" method="post" action="/dashboard/checkouts/${c.id}/expire" id="expire-form">
      ${csrfField(frame.csrfToken)}
      <button type="submit" class="danger" id="expire-submit">Expire checkout</button>
    </form>
  </section>`;
}

function paymentsTable(t: CheckoutTimeline): SafeHtml {
  if (t.payments.length === 0) return html`<p id="no-checkout-payments">No payment yet: the payer has not chosen a method.</p>`;
  return html`<table id="checkout-payments">
    <thead>
      <tr>
        <th class="num">#</th>
        <th>Payment</th>
        <th>Status</th>
        <th>Channel</th>
        <th class="num">Amount</th>
        <th>Created</th>
      </tr>
    </thead>
    <tbody>
      ${t.payments.map(({ seq, paymentId, payment: p }) =>
        p === undefined
          ? html`<tr data-payment-id="${paymentId}">
              <td class="num">${seq}</td>
              <td class="mono">${paymentId}</td>
              <td colspan="4" class="muted">never created (the selection stopped first)</td>
            </tr>`
          : html`<tr data-payment-id="${p.id}">
              <td class="num">${seq}</td>
              <td>${paymentLink(p.id)}</td>
              <td>${status(p.status)}</td>
              <td>${p.channel ?? p.channelRequested}${p.paymentMethod === null ? '' : html` · ${p.paymentMethod.instrument}`}</td>
              <td class="num">${money(p.amountMinor, p.currency)}</td>
              <td>${when(p.createdAt)}</td>
            </tr>`,
      )}
    </tbody>
  </table>`;
}

function timelineItem(e: CheckoutTimelineEntry): SafeHtml {
  const head = (text: SafeHtml | string) =>
    html`<div class="when">${when(e.at)}</div>
      ${text}`;
  switch (e.kind) {
    case 'created':
      return html`<li class="k-created">${head(html`<strong>Created</strong>`)}</li>`;
    case 'selection':
      return html`<li class="k-selection" id="selection-${e.seq}">
        ${head(
          e.payment === undefined
            ? html`<strong>Selection #${e.seq}</strong> · payment <code>${e.paymentId}</code> never created`
            : html`<strong>Payment created</strong> (selection #${e.seq}) ${paymentLink(e.paymentId)} ·
                ${e.payment.channel ?? e.payment.channelRequested}`,
        )}
      </li>`;
    case 'payment_closed': {
      const p = e.payment;
      const why = p.cancellationReason ?? p.failureCode;
      return html`<li class="k-payment_closed" id="payment-closed-${e.seq}">
        ${head(
          html`<strong>Payment ${p.status}</strong> ${paymentLink(p.id)}
            ${why === null ? '' : html`<span class="muted">${why}</span>`}`,
        )}
      </li>`;
    }
    case 'completed':
      return html`<li class="k-completed" id="checkout-completed">
        ${head(html`<strong>Completed</strong> by ${paymentLink(e.paymentId)}`)}
      </li>`;
    case 'expired':
      return html`<li class="k-expired" id="checkout-expired">${head(html`<strong>Expired</strong>`)}</li>`;
    case 'event':
      return html`<li class="k-event" id="event-${e.event.id}">
        ${head(html`<strong>Event</strong> <code>${e.event.type}</code> <span class="muted"><code>${e.event.id}</code></span>`)}
        ${
          e.deliveries.length === 0
            ? html`<div class="muted">No webhook deliveries.</div>`
            : html`<ul class="deliveries">
                ${e.deliveries.map(deliveryItem)}
              </ul>`
        }
      </li>`;
  }
}

export function checkoutPage(frame: Frame, t: CheckoutTimeline, options: { publicBaseUrl: string; notice: Notice }): string {
  return page(
    frame,
    `Checkout ${t.checkout.id}`,
    options.notice,
    html`<section class="card">${facts(t.checkout, options.publicBaseUrl)}</section>
      ${expireForm(frame, t.checkout)}
      <section class="card">
        <h2>Payments</h2>
        ${paymentsTable(t)}
      </section>
      <section class="card">
        <h2>Timeline</h2>
        ${t.truncated ? html`<p class="muted">Only the first payments, events and deliveries are shown.</p>` : ''}
        <ol class="timeline" id="checkout-timeline">
          ${t.entries.map(timelineItem)}
        </ol>
      </section>`,
  );
}
