import { CHANNELS } from '../../connectors/core/connector.ts';
import type { Balance } from '../../modules/ledger/ledger.ts';
import type { ApiKeyRecord } from '../../modules/merchants/merchant-repo.ts';
import type { PaymentTimeline, TimelineEntry } from '../../modules/payments/payment-timeline.ts';
import { PAYMENT_STATUSES } from '../../modules/payments/payment-states.ts';
import type { Payment } from '../../modules/payments/payment-types.ts';
import type { NumberedLine, Reconciliation } from '../../modules/reconciliation/reconciliation-repo.ts';
import { REFUND_REASONS } from '../../modules/refunds/refund-types.ts';
import type { Settlement, SettlementLine } from '../../modules/settlement/settlement-repo.ts';
import type { DeliveryRecord, EndpointHealth } from '../../modules/webhooks/delivery-repo.ts';
import type { WebhookEndpoint } from '../../modules/webhooks/webhook-types.ts';
import { redactSecrets } from '../../lib/logger.ts';
import { html, safeHref, type SafeHtml } from '../pages/html.ts';
import { barePage, csrfField, type Frame, money, type Notice, noticeBlock, page, status, when } from './dashboard-layout.ts';

/** What the screens render. Each takes module records (amounts in minor units) and escapes everything. */

const RAW_BODY_SHOWN_CHARS = 4000;
const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;

// ---- login ----

export function loginPage(notice: Notice): string {
  return barePage(
    'Sign in',
    html`<section class="card">
      <h1>Tributary dashboard</h1>
      ${noticeBlock(notice)}
      <form method="post" action="/dashboard/login" id="login-form" autocomplete="off">
        <label
          >Secret API key (sk_test_… for the sandbox, sk_live_… for production)
          <input type="password" name="api_key" id="api-key" required maxlength="64" autocomplete="off" spellcheck="false" />
        </label>
        <button type="submit" id="login">Sign in</button>
      </form>
      <p class="muted">
        The key is sent once to open a session and is never stored in the browser. The dashboard shows the key's merchant in the
        key's environment.
      </p>
    </section>`,
  );
}

export function errorPage(frame: Frame | undefined, title: string, message: string): string {
  const body = html`<section class="card">
    <p id="error-message">${message}</p>
    <p><a href="/dashboard/payments">Back to the dashboard</a></p>
  </section>`;
  return frame === undefined
    ? barePage(
        title,
        html`<h1>${title}</h1>
          ${body}`,
      )
    : page(frame, title, undefined, body);
}

// ---- payments ----

export interface PaymentFilters {
  status?: string;
  channel?: string;
  from?: string;
  to?: string;
  q?: string;
}

function option(value: string, label: string, selected: string | undefined): SafeHtml {
  return html`<option value="${value}" ${selected === value ? html`selected` : ''}>${label}</option>`;
}

function filterQuery(f: PaymentFilters, startingAfter: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (typeof v === 'string' && v !== '') params.set(k, v);
  params.set('starting_after', startingAfter);
  return `/dashboard/payments?${params.toString()}`;
}

export function paymentsPage(
  frame: Frame,
  list: { payments: Payment[]; hasMore: boolean; filters: PaymentFilters },
  notice: Notice,
): string {
  const f = list.filters;
  const last = list.payments.at(-1);
  return page(
    frame,
    'Payments',
    notice,
    html`<section class="card">
        <form class="filters" method="get" action="/dashboard/payments" id="payment-filters">
          <label
            >Search (pay_… id or reference_no)
            <input type="search" name="q" id="filter-q" value="${f.q ?? ''}" maxlength="255" />
          </label>
          <label
            >Status
            <select name="status" id="filter-status">
              ${option('', 'any', f.status)} ${PAYMENT_STATUSES.map((s) => option(s, s, f.status))}
            </select>
          </label>
          <label
            >Channel
            <select name="channel" id="filter-channel">
              ${option('', 'any', f.channel)} ${CHANNELS.map((c) => option(c, c, f.channel))}
            </select>
          </label>
          <label>Created from (UTC day) <input type="date" name="from" id="filter-from" value="${f.from ?? ''}" /></label>
          <label>Created to (UTC day) <input type="date" name="to" id="filter-to" value="${f.to ?? ''}" /></label>
          <button type="submit" id="apply-filters">Apply</button>
          <a href="/dashboard/payments">Clear</a>
        </form>
      </section>
      <section class="card">
        ${
          list.payments.length === 0
            ? html`<p id="no-payments">No payments match.</p>`
            : html`<table id="payments">
                <thead>
                  <tr>
                    <th>Payment</th>
                    <th>Reference</th>
                    <th class="num">Amount</th>
                    <th>Status</th>
                    <th>Channel</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.payments.map(
                    (p) =>
                      html`<tr data-payment-id="${p.id}">
                        <td><a class="mono" href="/dashboard/payments/${p.id}">${p.id}</a></td>
                        <td>${p.referenceNo}</td>
                        <td class="num">${money(p.amountMinor, p.currency)}</td>
                        <td>${status(p.status)}</td>
                        <td>${p.channel ?? p.channelRequested}</td>
                        <td>${when(p.createdAt)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${
          list.hasMore && last !== undefined
            ? html`<p class="pager"><a id="next-page" href="${filterQuery(f, last.id)}">Next page →</a></p>`
            : ''
        }
      </section>`,
  );
}

function deliveryTarget(d: DeliveryRecord): SafeHtml {
  return d.endpointId === null
    ? html`callback_url <code>${d.callbackUrl ?? ''}</code>`
    : html`endpoint <code>${d.endpointId}</code>${d.attempts[0] === undefined ? '' : html` <code>${d.attempts[0].url}</code>`}`;
}

function deliveryItem(d: DeliveryRecord): SafeHtml {
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
  options: { publicBaseUrl: string; refundIdempotencyKey: string; notice: Notice },
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
        refundable
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

// ---- webhook endpoints ----

export function webhooksPage(
  frame: Frame,
  endpoints: readonly WebhookEndpoint[],
  health: ReadonlyMap<string, EndpointHealth>,
  windowDays: number,
): string {
  return page(
    frame,
    'Webhook endpoints',
    undefined,
    html`<section class="card">
      ${
        endpoints.length === 0
          ? html`<p id="no-endpoints">No webhook endpoints. Create one with <code>POST /webhook_endpoint</code>.</p>`
          : html`<table id="endpoints">
              <thead>
                <tr>
                  <th>Endpoint</th>
                  <th>Status</th>
                  <th>Events</th>
                  <th class="num">Success (last ${windowDays} days)</th>
                  <th>Pending</th>
                  <th>Last success</th>
                  <th>Last failure</th>
                </tr>
              </thead>
              <tbody>
                ${endpoints.map((e) => {
                  const h = health.get(e.id);
                  const rate =
                    h === undefined || h.attempts === 0
                      ? html`<span class="muted">no attempts</span>`
                      : html`${Math.floor((h.succeeded * 100) / h.attempts)}%
                          <span class="muted">(${h.succeeded}/${h.attempts})</span>`;
                  const failure = h?.lastFailure ?? null;
                  return html`<tr data-endpoint-id="${e.id}">
                    <td>
                      <code>${e.id}</code><br /><code>${e.url}</code>${
                        e.description === null ? '' : html`<br /><span class="muted">${e.description}</span>`
                      }
                    </td>
                    <td>
                      ${status(e.status)}${e.disabledReason === null ? '' : html` (${e.disabledReason})`}${
                        e.failingSince === null
                          ? ''
                          : html`<br /><span class="muted">failing since ${when(e.failingSince)}</span>`
                      }
                    </td>
                    <td>${e.enabledEvents.join(', ')}</td>
                    <td class="num health-rate">${rate}</td>
                    <td>${h?.pending ?? 0}</td>
                    <td>${when(h?.lastSuccessAt ?? null)}</td>
                    <td class="last-failure">
                      ${
                        failure === null
                          ? '—'
                          : html`${when(failure.attemptedAt)}<br />${failure.outcome}${
                                failure.statusCode === null ? '' : html` HTTP ${failure.statusCode}`
                              }${failure.error === null ? '' : html`<br /><span class="muted">${failure.error}</span>`}`
                      }
                    </td>
                  </tr>`;
                })}
              </tbody>
            </table>`
      }
    </section>`,
  );
}

// ---- keys ----

export interface RevealedKey {
  id: string;
  secret: string;
  note: string;
}

function keyState(k: ApiKeyRecord, now: Date): SafeHtml {
  if (k.revokedAt !== null) return status('revoked');
  if (k.expiresAt !== null)
    return k.expiresAt <= now ? status('revoked', 'expired') : html`${status('rolled')} until ${when(k.expiresAt)}`;
  return status('active');
}

export function keysPage(
  frame: Frame,
  keys: readonly ApiKeyRecord[],
  options: { now: Date; revealed?: RevealedKey; notice: Notice },
): string {
  const env = frame.principal.environment;
  const r = options.revealed;
  return page(
    frame,
    'API keys',
    options.notice,
    html`${
        r === undefined
          ? ''
          : html`<section class="card" id="revealed-key">
              <h2>New key <code>${r.id}</code></h2>
              <p>Copy it now: it is shown this once and cannot be shown again.</p>
              <code class="secret" id="new-secret">${r.secret}</code>
              <p class="muted">${r.note}</p>
            </section>`
      }
      <section class="card">
        <table id="keys">
          <thead>
            <tr>
              <th>Key</th>
              <th>Prefix</th>
              <th>Created</th>
              <th>State</th>
              <th>Actions</th>
            </tr>
          </thead>
          <tbody>
            ${keys.map((k) => {
              const usable = k.revokedAt === null && (k.expiresAt === null || k.expiresAt > options.now);
              return html`<tr data-key-id="${k.id}">
                <td>
                  <code>${k.id}</code>${k.id === frame.principal.keyId ? html` <span class="muted">(this session)</span>` : ''}
                </td>
                <td><code>${k.displayPrefix}</code></td>
                <td>${when(k.createdAt)}</td>
                <td>${keyState(k, options.now)}</td>
                <td>
                  ${
                    usable
                      ? html`<form class="inline" method="post" action="/dashboard/keys/${k.id}/roll">
                            ${csrfField(frame.csrfToken)}
                            <label
                              >Old key works for (hours)
                              <input type="number" name="overlap_hours" value="24" min="0" max="720" id="overlap-${k.id}" />
                            </label>
                            <button type="submit" class="secondary" id="roll-${k.id}">Roll</button>
                          </form>
                          <form class="inline" method="post" action="/dashboard/keys/${k.id}/revoke">
                            ${csrfField(frame.csrfToken)}
                            <button type="submit" class="danger" id="revoke-${k.id}">Revoke</button>
                          </form>`
                      : ''
                  }
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      </section>
      <section class="card">
        <form method="post" action="/dashboard/keys">
          ${csrfField(frame.csrfToken)}
          <button type="submit" id="create-key">Create a ${env} key</button>
        </form>
        <p class="muted">
          A key manages its own environment only: sign in with a ${env === 'sandbox' ? 'production' : 'sandbox'} key to manage
          ${env === 'sandbox' ? 'production' : 'sandbox'} keys. Revoking or rolling the key of this session ends the session.
        </p>
      </section>`,
  );
}

// ---- balance ----

export function balancePage(frame: Frame, balances: readonly Balance[]): string {
  return page(
    frame,
    'Balance',
    undefined,
    html`<section class="card">
      ${
        balances.length === 0
          ? html`<p id="no-balance">No money has moved in this environment yet.</p>`
          : html`<table id="balances">
              <thead>
                <tr>
                  <th>Currency</th>
                  <th class="num">Pending (paid, not settled)</th>
                  <th class="num">Available (settled)</th>
                  <th class="num">Refunds in flight</th>
                  <th class="num">Owed to payers</th>
                </tr>
              </thead>
              <tbody>
                ${balances.map(
                  (b) =>
                    html`<tr data-currency="${b.currency}">
                      <td>${b.currency}</td>
                      <td class="num pending">${money(b.pendingMinor, b.currency)}</td>
                      <td class="num available">${money(b.availableMinor, b.currency)}</td>
                      <td class="num refunds-in-flight">${money(b.refundsInFlightMinor, b.currency)}</td>
                      <td class="num owed-to-payers">${money(b.owedToPayersMinor, b.currency)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      <p class="muted">From the ledger (docs/money.md). Owed to payers: late payments held until refunded to their payers.</p>
    </section>`,
  );
}

// ---- settlements ----

export function settlementsPage(frame: Frame, settlements: readonly Settlement[], hasMore: boolean): string {
  const last = settlements.at(-1);
  return page(
    frame,
    'Settlements',
    undefined,
    html`<section class="card">
      ${
        settlements.length === 0
          ? html`<p id="no-settlements">No settlements yet.</p>`
          : html`<table id="settlements">
              <thead>
                <tr>
                  <th>Settlement</th>
                  <th>Connector</th>
                  <th class="num">Payments</th>
                  <th class="num">Gross</th>
                  <th class="num">Fee</th>
                  <th class="num">Net</th>
                  <th>Period</th>
                </tr>
              </thead>
              <tbody>
                ${settlements.map(
                  (s) =>
                    html`<tr data-settlement-id="${s.id}">
                      <td><a class="mono" href="/dashboard/settlements/${s.id}">${s.id}</a></td>
                      <td>${s.connector}</td>
                      <td class="num">${s.paymentCount}</td>
                      <td class="num">${money(s.grossMinor, s.currency)}</td>
                      <td class="num">${money(s.feeMinor, s.currency)}</td>
                      <td class="num">${money(s.netMinor, s.currency)}</td>
                      <td>${when(s.periodStart)} – ${when(s.periodEnd)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
      }
      ${
        hasMore && last !== undefined
          ? html`<p class="pager"><a id="next-page" href="/dashboard/settlements?starting_after=${last.id}">Next page →</a></p>`
          : ''
      }
    </section>`,
  );
}

export function settlementPage(
  frame: Frame,
  s: Settlement,
  lines: readonly (SettlementLine & { referenceNo: string })[],
): string {
  return page(
    frame,
    `Settlement ${s.id}`,
    undefined,
    html`<section class="card">
        <dl class="facts" id="settlement-facts">
          <dt>Connector</dt>
          <dd>${s.connector}</dd>
          <dt>Gross</dt>
          <dd>${money(s.grossMinor, s.currency)}</dd>
          <dt>Fee</dt>
          <dd>${money(s.feeMinor, s.currency)}</dd>
          <dt>Net</dt>
          <dd id="settlement-net">${money(s.netMinor, s.currency)}</dd>
          <dt>Period</dt>
          <dd>${when(s.periodStart)} – ${when(s.periodEnd)}</dd>
          <dt>Recorded</dt>
          <dd>${when(s.createdAt)}</dd>
        </dl>
      </section>
      <section class="card">
        <table id="settlement-lines">
          <thead>
            <tr>
              <th>Payment</th>
              <th>Reference</th>
              <th>Provider reference</th>
              <th class="num">Gross</th>
              <th class="num">Fee</th>
              <th class="num">Net</th>
              <th>Settled</th>
            </tr>
          </thead>
          <tbody>
            ${lines.map(
              (l) =>
                html`<tr>
                  <td><a class="mono" href="/dashboard/payments/${l.paymentId}">${l.paymentId}</a></td>
                  <td>${l.referenceNo}</td>
                  <td><code>${l.providerReference}</code></td>
                  <td class="num">${money(l.grossMinor, s.currency)}</td>
                  <td class="num">${money(l.feeMinor, s.currency)}</td>
                  <td class="num">${money(l.netMinor, s.currency)}</td>
                  <td>${when(l.settledAt)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`,
  );
}

// ---- reconciliation ----

export function reconciliationsPage(
  frame: Frame,
  options: {
    recent: readonly Reconciliation[];
    connectors: readonly string[];
    idempotencyKey: string;
    defaults: { from: string; to: string };
    notice: Notice;
  },
): string {
  return page(
    frame,
    'Reconciliation',
    options.notice,
    html`<section class="card">
        <h2>Reconcile a settlement report</h2>
        ${
          options.connectors.length === 0
            ? html`<p>No connector in this environment reports settlements.</p>`
            : html`<form class="filters" method="post" action="/dashboard/reconciliation" id="reconcile-form">
                ${csrfField(frame.csrfToken)}
                <input type="hidden" name="idempotency_key" value="${options.idempotencyKey}" />
                <label
                  >Connector
                  <select name="connector" id="reconcile-connector">
                    ${options.connectors.map((c) => option(c, c, undefined))}
                  </select>
                </label>
                <label
                  >From (UTC)
                  <input type="datetime-local" name="from" id="reconcile-from" value="${options.defaults.from}" required
                /></label>
                <label
                  >To (UTC, exclusive)
                  <input type="datetime-local" name="to" id="reconcile-to" value="${options.defaults.to}" required
                /></label>
                <button type="submit" id="reconcile-submit">Reconcile</button>
              </form>`
        }
        <p class="muted">At most 31 days. The same connector, window and inputs give back the same reconciliation.</p>
      </section>
      <section class="card">
        <h2>Recent reconciliations</h2>
        ${
          options.recent.length === 0
            ? html`<p id="no-reconciliations">None yet.</p>`
            : html`<table id="reconciliations">
                <thead>
                  <tr>
                    <th>Reconciliation</th>
                    <th>Connector</th>
                    <th>Window</th>
                    <th>Status</th>
                    <th class="num">Lines</th>
                    <th class="num">Discrepancies</th>
                  </tr>
                </thead>
                <tbody>
                  ${options.recent.map(
                    (r) =>
                      html`<tr>
                        <td><a class="mono" href="/dashboard/reconciliation/${r.id}">${r.id}</a></td>
                        <td>${r.connector}</td>
                        <td>${when(r.from)} – ${when(r.to)}</td>
                        <td>${status(r.status)}</td>
                        <td class="num">${r.reportLines}</td>
                        <td class="num">${r.discrepancyCount}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>`,
  );
}

function side(l: NumberedLine['report'] | NumberedLine['ours']): SafeHtml | string {
  if (l === null) return '—';
  return html`${money(l.grossMinor, l.currency)} gross · ${money(l.feeMinor, l.currency)} fee · ${money(l.netMinor, l.currency)}
    net<br /><span class="muted">${when(l.settledAt)}</span>`;
}

export function reconciliationPage(
  frame: Frame,
  r: Reconciliation,
  lines: { lines: readonly NumberedLine[]; hasMore: boolean },
  notice: Notice,
): string {
  const last = lines.lines.at(-1);
  const kinds = Object.entries(r.counts).filter(([kind, n]) => kind !== 'matched' && n > 0);
  return page(
    frame,
    `Reconciliation ${r.id}`,
    notice,
    html`<section class="card">
        <dl class="facts" id="reconciliation-facts">
          <dt>Connector</dt>
          <dd>${r.connector}</dd>
          <dt>Window</dt>
          <dd>${when(r.from)} – ${when(r.to)}</dd>
          <dt>Status</dt>
          <dd id="reconciliation-status">${status(r.status)}</dd>
          <dt>Report lines</dt>
          <dd>${r.reportLines} (${r.matchedCount} matched)</dd>
          <dt>Discrepancies</dt>
          <dd id="reconciliation-discrepancies">
            ${r.discrepancyCount}${kinds.length === 0 ? '' : html`: ${kinds.map(([k, n], i) => html`${i > 0 ? ', ' : ''}${k} ${n}`)}`}
          </dd>
        </dl>
      </section>
      <section class="card">
        <h2>Lines that do not match</h2>
        ${
          lines.lines.length === 0
            ? html`<p id="no-discrepancies">Every line matched.</p>`
            : html`<table id="discrepancies">
                <thead>
                  <tr>
                    <th>#</th>
                    <th>Result</th>
                    <th>Payment</th>
                    <th>Provider reference</th>
                    <th>Provider's report</th>
                    <th>Our record</th>
                  </tr>
                </thead>
                <tbody>
                  ${lines.lines.map(
                    (l) =>
                      html`<tr data-result="${l.result}">
                        <td>${l.seq}</td>
                        <td>${status('bad', l.result)}</td>
                        <td>
                          ${l.paymentId === null ? '—' : html`<a class="mono" href="/dashboard/payments/${l.paymentId}">${l.paymentId}</a>`}
                        </td>
                        <td><code>${l.providerReference}</code></td>
                        <td>${side(l.report)}</td>
                        <td>${side(l.ours)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${
          lines.hasMore && last !== undefined
            ? html`<p class="pager">
                <a id="next-page" href="/dashboard/reconciliation/${r.id}?after=${last.seq}">Next page →</a>
              </p>`
            : ''
        }
      </section>`,
  );
}
