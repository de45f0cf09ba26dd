import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import {
  type Checkout,
  type CheckoutStatus,
  checkoutIdsOfPayments,
  findCheckout,
  listCheckouts,
} from '../../../modules/checkouts/index.ts';
import { html } from '../../pages/html.ts';
import { type Frame, money, type Notice, option, page, status, when } from '../dashboard-layout.ts';
import { noticeOf, PAGE_SIZE, queryOf, redirect, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

const CHECKOUT_STATUSES: readonly CheckoutStatus[] = ['open', 'completed', 'expired'];

/**
 * Checkouts, newest first and a page at a time (`GET /dashboard/checkouts`), filtered by status;
 * a `cs_…` id, or the `pay_…` id of one of its payments, opens the checkout.
 */
export function registerCheckoutListScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/checkouts', sessionRoute('payments.read'), async (request, reply) => {
    const query = queryOf(request);
    const { scope, frame } = signedIn(request);
    const { merchantId, environment } = scope;
    const search = query['q']?.trim() ?? '';
    if (search !== '') {
      const id = isIdOf('checkout', search)
        ? (await findCheckout(deps.store, merchantId, environment, search))?.id
        : isIdOf('payment', search)
          ? (await checkoutIdsOfPayments(deps.store, merchantId, environment, [search])).get(search)
          : undefined;
      if (id !== undefined) return redirect(reply, `/dashboard/checkouts/${id}`);
      const notice: Notice = { kind: 'bad', text: 'No checkout has that id, and no payment of a checkout has it.' };
      return send(reply, 200, checkoutsPage(frame('checkouts'), { checkouts: [], hasMore: false, q: search }, notice));
    }
    const statusText = query['status'] ?? '';
    const known = (CHECKOUT_STATUSES as readonly string[]).includes(statusText);
    const after = query['starting_after'];
    const listed = await listCheckouts(deps.store, merchantId, environment, {
      limit: PAGE_SIZE,
      ...(known ? { status: statusText as CheckoutStatus } : {}),
      ...(after !== undefined && isIdOf('checkout', after) ? { startingAfter: after } : {}),
    });
    // A cursor that no longer exists starts the list over (with the same filter).
    if (!listed.ok) return redirect(reply, known ? `/dashboard/checkouts?status=${statusText}` : '/dashboard/checkouts');
    const notice: Notice = statusText !== '' && !known ? { kind: 'bad', text: 'Unknown status.' } : noticeOf(request);
    return send(
      reply,
      statusText !== '' && !known ? 400 : 200,
      checkoutsPage(
        frame('checkouts'),
        { checkouts: listed.checkouts, hasMore: listed.hasMore, ...(known ? { status: statusText } : {}) },
        notice,
      ),
    );
  });
}

/** The payment a row links to: the one that completed the checkout, else the latest selection's. */
const currentPaymentOf = (c: Checkout) => c.completedPaymentId ?? c.currentPaymentId;

function nextPageHref(statusFilter: string | undefined, startingAfter: string): string {
  const params = new URLSearchParams();
  if (statusFilter !== undefined) params.set('status', statusFilter);
  params.set('starting_after', startingAfter);
  return `/dashboard/checkouts?${params.toString()}`;
}

function checkoutRow(c: Checkout) {
  const current = currentPaymentOf(c);
  return html`<tr data-checkout-id="${c.id}">
    <td><a class="mono" href="/dashboard/checkouts/${c.id}">${c.id}</a></td>
    <td>${status(c.status)}</td>
    <td class="num">${money(c.amountMinor, c.currency)}</td>
    <td>${c.referenceNo}</td>
    <td>${when(c.createdAt)}</td>
    <td>
      ${current === null ? '—' : html`<a class="mono current-payment" href="/dashboard/payments/${current}">${current}</a>`}
    </td>
  </tr>`;
}

function checkoutsPage(
  frame: Frame,
  list: { checkouts: readonly Checkout[]; hasMore: boolean; status?: string; q?: string },
  notice: Notice,
): string {
  const last = list.checkouts.at(-1);
  return page(
    frame,
    'Checkouts',
    notice,
    html`<section class="card">
        <form class="filters" method="get" action="/dashboard/checkouts" id="checkout-filters">
          <label
            >Find (cs_… id, or the pay_… id of one of its payments)
            <input type="search" name="q" id="checkout-q" value="${list.q ?? ''}" maxlength="64" />
          </label>
          <label
            >Status
            <select name="status" id="checkout-status">
              ${option('', 'any', list.status)} ${CHECKOUT_STATUSES.map((s) => option(s, s, list.status))}
            </select>
          </label>
          <button type="submit" id="apply-checkout-filters">Apply</button>
          <a href="/dashboard/checkouts">Clear</a>
        </form>
      </section>
      <section class="card">
        ${
          list.checkouts.length === 0
            ? html`<p id="no-checkouts">No checkouts match.</p>`
            : html`<table id="checkouts">
                <thead>
                  <tr>
                    <th>Checkout</th>
                    <th>Status</th>
                    <th class="num">Amount</th>
                    <th>Reference</th>
                    <th>Created</th>
                    <th>Current payment</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.checkouts.map(checkoutRow)}
                </tbody>
              </table>`
        }
        ${
          list.hasMore && last !== undefined
            ? html`<p class="pager"><a id="next-page" href="${nextPageHref(list.status, last.id)}">Next page →</a></p>`
            : ''
        }
      </section>`,
  );
}
