import type { FastifyInstance } from 'fastify';
import { type Balance, merchantBalances } from '../../../modules/ledger/ledger.ts';
import { html } from '../../pages/html.ts';
import { type Frame, money, page } from '../dashboard-layout.ts';
import { type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

/** The balance per currency, from the ledger (`GET /dashboard/balance`). */
export function registerBalanceScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/balance', sessionRoute('balance.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const balances = await merchantBalances(deps.store, scope.merchantId, scope.environment);
    return send(reply, 200, balancePage(frame('balance'), balances));
  });
}

function balancePage(frame: Frame, balances: readonly Balance[]): string {
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
