import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import { findSettlement, type Settlement, type SettlementLine } from '../../../modules/settlement/settlement-repo.ts';
import { html } from '../../pages/html.ts';
import { type Frame, money, page, when } from '../dashboard-layout.ts';
import { DashboardError, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

/** One settlement batch and its payments (`GET /dashboard/settlements/{id}`). */
export function registerSettlementDetailScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get<{ Params: { id: string } }>('/settlements/:id', sessionRoute('payments.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const id = request.params.id;
    const found = isIdOf('settlement', id)
      ? await findSettlement(deps.store, scope.merchantId, scope.environment, id)
      : undefined;
    if (found === undefined) throw new DashboardError(404, 'No such settlement.');
    return send(reply, 200, settlementPage(frame('settlements'), found.settlement, found.lines));
  });
}

function settlementPage(frame: Frame, s: Settlement, lines: readonly (SettlementLine & { referenceNo: string })[]): string {
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
