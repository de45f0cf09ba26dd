import type { PaymentTimeline, TimelineEntry } from '../../../modules/timeline/payment-timeline.ts';
import type { Payment } from '../../../modules/payments/payment-types.ts';
import { REFUND_REASONS } from '../../../modules/refunds/refund-types.ts';
import type { DeliveryRecord } from '../../../modules/webhooks/delivery-repo.ts';
import { redactSecrets } from '../../../lib/logger.ts';
import { html, safeHref, type SafeHtml } from '../../pages/html.ts';
import { csrfField, type Frame, money, type Notice, option, page, status, when } from '../dashboard-layout.ts';

/**
 * The payment screen's page: the payment's facts, the cancel form (pending only), the refund form and its timeline (attempts,
 * provider notifications, refunds, events with their webhook deliveries and redeliver buttons).
 */

const RAW_BODY_SHOWN_CHARS = 4000;
const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;

function deliveryTarget(d: DeliveryRecord): SafeHtml {
  return d.endpointId === null
    ? html`callback_url <code>${d.callbackUrl ?? ''}</code>`
    : html`endpoint <code>${d.endpointId}</code>${d.attempts[0] === undefined ? '' : html` <code>${d.attempts[0].url}</code>`}`;
}

/** One webhook delivery of an event with its HTTP attempts (the payment and checkout timelines). */
export function deliveryItem(d: DeliveryRecord): SafeHtml {
  return html`<li class="delivery" data-delivery-id="${d.id}">
    ${deliveryTarget(d)} · ${d.trigger} · ${status(d.status)}${d.failureReason === null ? '' : html` (${d.failureReason})`} ·
    ${d.attemptCount}
    attempt(s)${d.status === 'pending' && d.nextAttemptAt !== null ? html` · next ${when(d.nextAttemptAt)}` : ''}
    ${
      d.attempts.length === 0
        ? ''
        : html`<ul>
            ${d.attempts.map(
              (a) =>
                html`<li class="delivery-attempt">
                  #${a.attemptNumber} ${when(a.attemptedAt)} ·
                  ${status(a.outcome === 'succeeded' ? 'succeeded' : 'failed', a.outcome)}
                  ${a.statusCode === null ? '' : html`HTTP ${a.statusCode}`} · ${a.durationMs} ms
                  ${a.error === null ? '' : html`<div class="muted">${a.error}</div>`}
                  ${
                    a.responseBody === null || a.responseBody === ''
                      ? ''
                      : html`<pre class="response-body">${clip(a.responseBody, RAW_BODY_SHOWN_CHARS)}</pre>`
                  }
                </li>`,
            )}
          </ul>`
    }
  </li>`;
}

function redeliverForm(
  frame: Frame,
  paymentId: string,
  eventId: string,
  target: string,
  label: string,
  endpointId = '',
): SafeHtml {
  const id = `redeliver-${eventId}-${endpointId === '' ? target : endpointId}`;
  if (!frame.may('events.redeliver')) return html``;
  return html`<form class="inline" method="post" action="/dashboard/events/${eventId}/redeliver">
    ${csrfField(frame.csrfToken)}
    <input type="hidden" name="payment_id" value="${paymentId}" />
    <input type="hidden" name="target" value="${target}" />
    ${endpointId === '' ? '' : html`<input type="hidden" name="endpoint_id" value="${endpointId}" />`}
    <button type="submit" class="secondary" id="${id}">${label}</button>
  </form>`;
}

function timelineItem(frame: Frame, payment: Payment, e: TimelineEntry): SafeHtml {
  switch (e.kind) {
    case 'attempt': {
      const a = e.attempt;
      return html`<li class="k-attempt" id="attempt-${a.id}">
        <div class="when">${when(e.at)}</div>
        <strong>Attempt #${a.seq}</strong> <code>${a.id}</code> at ${a.connector}
        (${a.channel}${a.instrument === null ? '' : html`, ${a.instrument}`}) ${status(a.status)}
        ${a.providerReference === null ? '' : html`<div class="muted">provider reference <code>${a.providerReference}</code></div>`}
        ${a.errorCode === null ? '' : html`<div class="muted">${a.errorCode}: ${a.errorMessage ?? ''}</div>`}
      </li>`;
    }
    case 'notification': {
      const n = e.notification;
      return html`<li class="k-notification" id="notification-${n.id}">
        <div class="when">${when(e.at)}</div>
        <strong>Provider notification</strong> from ${n.connector} ${status(n.status)}
        <span class="muted">event <code>${n.providerEventId}</code>${n.outcome === null ? '' : html` · ${n.outcome}`}</span>
        ${n.error === null ? '' : html`<div class="muted">${n.error}</div>`}
        <details>
          <summary>Body as received</summary>
          <pre>${clip(redactSecrets(n.rawBody), RAW_BODY_SHOWN_CHARS)}</pre>
        </details>
      </li>`;
    }
    case 'refund': {
      const r = e.refund;
      return html`<li class="k-refund" id="refund-${r.id}">
        <div class="when">${when(e.at)}</div>
        <strong>Refund</strong> <code>${r.id}</code> ${money(r.amountMinor, r.currency)} ${status(r.status)}
        ${r.reason === null ? '' : html`<span class="muted">${r.reason}</span>`}
        ${r.failureCode === null ? '' : html`<div class="muted">${r.failureCode}: ${r.failureMessage ?? ''}</div>`}
      </li>`;
    }
    case 'event': {
      const ev = e.event;
      const endpoints = [...new Set(e.deliveries.flatMap((d) => (d.endpointId === null ? [] : [d.endpointId])))];
      const hasCallback = e.deliveries.some((d) => d.callbackUrl !== null);
      return html`<li class="k-event" id="event-${ev.id}">
        <div class="when">${when(e.at)}</div>
        <strong>Event</strong> <code>${ev.type}</code>
        <span class="muted"><code>${ev.id}</code> (version ${ev.objectVersion})</span>
        ${
          e.deliveries.length === 0
            ? html`<div class="muted">No webhook deliveries.</div>`
            : html`<ul class="deliveries">
                ${e.deliveries.map(deliveryItem)}
              </ul>`
        }
        <div>
          ${redeliverForm(frame, payment.id, ev.id, 'all', 'Redeliver')}
          ${endpoints.map((id) => redeliverForm(frame, payment.id, ev.id, 'endpoint', `Redeliver to ${id}`, id))}
          ${hasCallback ? redeliverForm(frame, payment.id, ev.id, 'callback_url', 'Redeliver to callback_url') : ''}
        </div>
      </li>`;
    }
  }
}

export function paymentPage(
  frame: Frame,
  t: PaymentTimeline,
  options: {
    publicBaseUrl: string;
    checkoutId: string | undefined;
    refundIdempotencyKey: string;
    cancelIdempotencyKey: string;
    notice: Notice;
  },
): string {
  const p = t.payment;
  const payUrl = safeHref(`${options.publicBaseUrl}/pay/${p.id}`, 'web');
  const lateRefundable = p.latePayment?.resolution === 'refund_required';
  const refundable = p.status === 'succeeded' || lateRefundable;
  return page(
    frame,
    `Payment ${p.id}`,
    options.notice,
    html`<section class="card">
        <dl class="facts" id="payment-facts">
          <dt>Status</dt>
          <dd id="payment-status">${status(p.status)}</dd>
          <dt>Amount</dt>
          <dd id="payment-amount">${money(p.amountMinor, p.currency)}</dd>
          <dt>Paid</dt>
          <dd>${money(p.amountPaidMinor, p.currency)}</dd>
          <dt>Refunded</dt>
          <dd id="payment-refunded">${money(p.amountRefundedMinor, p.currency)}</dd>
          <dt>Reference</dt>
          <dd id="payment-reference">${p.referenceNo}</dd>
          ${
            p.description === null
              ? ''
              : html`<dt>Description</dt>
                  <dd>${p.description}</dd>`
          }
          ${
            options.checkoutId === undefined
              ? ''
              : html`<dt>Checkout</dt>
                  <dd id="payment-checkout">
                    <a class="mono" href="/dashboard/checkouts/${options.checkoutId}">${options.checkoutId}</a>
                  </dd>`
          }
          <dt>Channel</dt>
          <dd>
            ${p.channel ?? `${p.channelRequested} (not routed yet)`}${
              p.paymentMethod === null ? '' : html` · ${p.paymentMethod.connector} · ${p.paymentMethod.instrument_name}`
            }
          </dd>
          ${
            p.email === null
              ? ''
              : html`<dt>Payer e-mail</dt>
                  <dd>${p.email}</dd>`
          }
          <dt>Created</dt>
          <dd>${when(p.createdAt)}</dd>
          <dt>Expires</dt>
          <dd>${when(p.expiresAt)}</dd>
          ${
            p.succeededAt === null
              ? ''
              : html`<dt>Succeeded</dt>
                  <dd>${when(p.succeededAt)}</dd>`
          }
          ${
            p.closedAt === null
              ? ''
              : html`<dt>Closed</dt>
                  <dd>${when(p.closedAt)}</dd>`
          }
          ${
            p.failureCode === null
              ? ''
              : html`<dt>Failure</dt>
                  <dd>${p.failureCode}: ${p.failureMessage ?? ''}</dd>`
          }
          ${
            p.latePayment === null
              ? ''
              : html`<dt>Late payment</dt>
                  <dd>
                    ${money(BigInt(p.latePayment.amount_minor), p.currency)} · ${p.latePayment.resolution}
                    (${p.latePayment.reason})
                  </dd>`
          }
          ${
            p.settlementId === null
              ? ''
              : html`<dt>Settlement</dt>
                  <dd>
                    <a href="/dashboard/settlements/${p.settlementId}">${p.settlementId}</a> · fee
                    ${p.feeMinor === null ? '—' : money(p.feeMinor, p.currency)} · net
                    ${p.netMinor === null ? '—' : money(p.netMinor, p.currency)}
                  </dd>`
          }
          ${
            payUrl === undefined
              ? ''
              : html`<dt>Payer page</dt>
                  <dd><a href="${payUrl}" rel="noopener noreferrer">${payUrl}</a></dd>`
          }
        </dl>
      </section>
      ${
        p.status === 'pending' && frame.may('payments.cancel')
          ? html`<section class="card">
              <h2>Cancel</h2>
              <p class="muted">
                The payer can no longer pay: the provider closes the instructions (virtual account, code or e-wallet charge).
              </p>
              <form class="inline" method="post" action="/dashboard/payments/${p.id}/cancel" id="cancel-form">
                ${csrfField(frame.csrfToken)}
                <input type="hidden" name="idempotency_key" value="${options.cancelIdempotencyKey}" />
                <button type="submit" class="danger" id="cancel-submit">Cancel payment</button>
              </form>
            </section>`
          : ''
      }
      ${
        refundable && frame.may('refunds.create')
          ? html`<section class="card">
              <h2>Refund</h2>
              <form class="filters" method="post" action="/dashboard/payments/${p.id}/refund" id="refund-form">
                ${csrfField(frame.csrfToken)}
                <input type="hidden" name="idempotency_key" value="${options.refundIdempotencyKey}" />
                <label
                  >Amount in ${p.currency} (empty: all that is left)
                  <input
                    type="text"
                    name="amount"
                    id="refund-amount"
                    inputmode="decimal"
                    maxlength="24"
                    pattern="[0-9]+([.][0-9]+)?"
                /></label>
                <label
                  >Reason
                  <select name="reason" id="refund-reason">
                    ${option('', 'none given', undefined)} ${REFUND_REASONS.map((r) => option(r, r, undefined))}
                  </select>
                </label>
                ${
                  lateRefundable
                    ? html`<label
                        >Money
                        <select name="source" id="refund-source">
                          ${p.status === 'succeeded' ? option('payment', 'the payment', undefined) : ''}
                          ${option('late_payment', 'the late payment', p.status === 'succeeded' ? undefined : 'late_payment')}
                        </select>
                      </label>`
                    : ''
                }
                <button type="submit" id="refund-submit">Refund</button>
              </form>
            </section>`
          : ''
      }
      <section class="card">
        <h2>Timeline</h2>
        ${t.truncated ? html`<p class="muted">Only the first events and deliveries are shown.</p>` : ''}
        <ol class="timeline" id="timeline">
          ${t.entries.map((e) => timelineItem(frame, p, e))}
        </ol>
      </section>`,
  );
}
