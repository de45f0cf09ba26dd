import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import { checkoutIdsOfPayments } from '../../../modules/checkouts/index.ts';
import { listPayments, type PaymentListFilter } from '../../../modules/payments/payment-query-repo.ts';
import { findPayment } from '../../../modules/payments/payment-repo.ts';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../../modules/payments/payment-states.ts';
import type { Payment } from '../../../modules/payments/payment-types.ts';
import { html } from '../../pages/html.ts';
import { type Frame, money, type Notice, option, page, status, when } from '../dashboard-layout.ts';
import {
  DAY_MS,
  noticeOf,
  PAGE_SIZE,
  queryOf,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';
import { CHANNELS, type Channel } from '../../../kernel/index.ts';

/** The filters as the form shows them back (the text the merchant typed, when it was valid). */
interface PaymentFilters {
  status?: string;
  channel?: string;
  from?: string;
  to?: string;
  q?: string;
}

/**
 * Payments, newest first and a page at a time (`GET /dashboard/payments`), filtered by status,
 * channel and created day, or searched by `pay_…` id (which opens the payment) or reference_no.
 */
export function registerPaymentListScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/payments', sessionRoute('payments.read'), async (request, reply) => {
    const query = queryOf(request);
    const { scope, frame } = signedIn(request);
    const { merchantId, environment } = scope;
    const search = query['q']?.trim();
    if (search !== undefined && isIdOf('payment', search)) {
      const found = await findPayment(deps.store, merchantId, environment, search);
      if (found !== undefined) return redirect(reply, `/dashboard/payments/${found.id}`);
      const list = { payments: [], checkoutOf: new Map<string, string>(), hasMore: false, filters: { q: search } };
      return send(reply, 200, paymentsPage(frame('payments'), list, undefined));
    }
    const { filters, filter, problems } = readFilters(query);
    const after = query['starting_after'];
    const listed = await listPayments(deps.store, merchantId, environment, filter, {
      limit: PAGE_SIZE,
      ...(after !== undefined && isIdOf('payment', after) ? { startingAfter: after } : {}),
    });
    if (!listed.ok) problems.push('That page no longer exists; showing the first.');
    const shown = listed.ok
      ? listed
      : await listPayments(deps.store, merchantId, environment, filter, { limit: PAGE_SIZE }).then((r) =>
          r.ok ? r : { ok: true as const, payments: [], hasMore: false },
        );
    const notice: Notice = problems.length > 0 ? { kind: 'bad', text: problems.join(' ') } : noticeOf(request);
    // The checkout that made each payment of the page, if one did: one query for the page.
    const checkoutOf = await checkoutIdsOfPayments(
      deps.store,
      merchantId,
      environment,
      shown.payments.map((p) => p.id),
    );
    return send(
      reply,
      problems.length > 0 ? 400 : 200,
      paymentsPage(frame('payments'), { payments: shown.payments, checkoutOf, hasMore: shown.hasMore, filters }, notice),
    );
  });
}

/** The query as a list filter, the filters to show back, and what was wrong with it. */
function readFilters(query: Record<string, string | undefined>): {
  filters: PaymentFilters;
  filter: PaymentListFilter;
  problems: string[];
} {
  const filters: PaymentFilters = {};
  const filter: PaymentListFilter = {};
  const problems: string[] = [];
  const search = query['q']?.trim();
  if (search !== undefined && search !== '') {
    filters.q = search;
    filter.referenceNo = search.slice(0, 255);
  }
  const statusText = query['status'];
  if (statusText !== undefined && statusText !== '') {
    if ((PAYMENT_STATUSES as readonly string[]).includes(statusText)) {
      filter.status = statusText as PaymentStatus;
      filters.status = statusText;
    } else problems.push('Unknown status.');
  }
  const channelText = query['channel'];
  if (channelText !== undefined && channelText !== '') {
    if ((CHANNELS as readonly string[]).includes(channelText)) {
      filter.channel = channelText as Channel;
      filters.channel = channelText;
    } else problems.push('Unknown channel.');
  }
  for (const [name, bound] of [
    ['from', 'createdGte'],
    ['to', 'createdLte'],
  ] as const) {
    const text = query[name];
    if (text === undefined || text === '') continue;
    const day = utcDay(text);
    if (day === undefined) {
      problems.push(`"${name}" must be a date (YYYY-MM-DD).`);
      continue;
    }
    filters[name] = text;
    // "to" includes the whole day.
    filter[bound] = bound === 'createdLte' ? new Date(day.getTime() + DAY_MS - 1) : day;
  }
  return { filters, filter, problems };
}

/** `YYYY-MM-DD` as the start of that UTC day, or undefined for anything else. */
function utcDay(text: string | undefined): Date | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const d = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text ? undefined : d;
}

function nextPageHref(filters: PaymentFilters, startingAfter: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (typeof value === 'string' && value !== '') params.set(name, value);
  params.set('starting_after', startingAfter);
  return `/dashboard/payments?${params.toString()}`;
}

const checkoutCell = (checkoutId: string | undefined) =>
  checkoutId === undefined ? '' : html`<a class="mono checkout-link" href="/dashboard/checkouts/${checkoutId}">${checkoutId}</a>`;

function paymentsPage(
  frame: Frame,
  list: { payments: Payment[]; checkoutOf: ReadonlyMap<string, string>; hasMore: boolean; filters: PaymentFilters },
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
            : html`<table id="payments" class="stack">
                <thead>
                  <tr>
                    <th>Payment</th>
                    <th>Reference</th>
                    <th class="num">Amount</th>
                    <th>Status</th>
                    <th>Channel</th>
                    <th>Created</th>
                    <th>Checkout</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.payments.map(
                    (p) =>
                      html`<tr data-payment-id="${p.id}">
                        <td data-label="Payment"><a class="mono" href="/dashboard/payments/${p.id}">${p.id}</a></td>
                        <td data-label="Reference">${p.referenceNo}</td>
                        <td data-label="Amount" class="num">${money(p.amountMinor, p.currency)}</td>
                        <td data-label="Status">${status(p.status)}</td>
                        <td data-label="Channel">${p.channel ?? p.channelRequested}</td>
                        <td data-label="Created">${when(p.createdAt)}</td>
                        <td data-label="Checkout">${checkoutCell(list.checkoutOf.get(p.id))}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
        ${
          list.hasMore && last !== undefined
            ? html`<p class="pager"><a id="next-page" href="${nextPageHref(f, last.id)}">Next page →</a></p>`
            : ''
        }
      </section>`,
  );
}
