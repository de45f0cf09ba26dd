import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import { listSettlements, type Settlement } from '../../../modules/settlement/settlement-repo.ts';
import { html } from '../../pages/html.ts';
import { type Frame, money, page, when } from '../dashboard-layout.ts';
import { PAGE_SIZE, queryOf, redirect, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

/** Settlement batches, newest first and a page at a time (`GET /dashboard/settlements`). */
export function registerSettlementListScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/settlements', sessionRoute('payments.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const after = queryOf(request)['starting_after'];
    const listed = await listSettlements(deps.store, scope.merchantId, scope.environment, {
      limit: PAGE_SIZE,
      ...(after !== undefined && isIdOf('settlement', after) ? { startingAfter: after } : {}),
    });
    // A cursor that no longer exists starts the list over.
    if (!listed.ok) return redirect(reply, '/dashboard/settlements');
    return send(reply, 200, settlementsPage(frame('settlements'), listed.settlements, listed.hasMore));
  });
}

function settlementsPage(frame: Frame, settlements: readonly Settlement[], hasMore: boolean): string {
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
