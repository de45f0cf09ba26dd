import type { FastifyInstance } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import {
  findReconciliation,
  listReconciliationLines,
  type NumberedLine,
  type Reconciliation,
} from '../../../modules/reconciliation/reconciliation-repo.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { type Frame, money, type Notice, page, status, when } from '../dashboard-layout.ts';
import { DashboardError, noticeOf, queryOf, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

const LINES_PER_PAGE = 100;

/** One reconciliation and its report lines that do not match, a page at a time (`GET /dashboard/reconciliation/{id}`). */
export function registerReconciliationDetailScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get<{ Params: { id: string } }>('/reconciliation/:id', sessionRoute('payments.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const id = request.params.id;
    const found = isIdOf('reconciliation', id)
      ? await findReconciliation(deps.store, scope.merchantId, scope.environment, id)
      : undefined;
    if (found === undefined) throw new DashboardError(404, 'No such reconciliation.');
    const afterText = queryOf(request)['after'];
    const afterSeq = afterText !== undefined && /^\d{1,9}$/.test(afterText) ? Number(afterText) : 0;
    const lines = await listReconciliationLines(deps.store, scope.merchantId, scope.environment, found.id, {
      afterSeq,
      limit: LINES_PER_PAGE,
      discrepanciesOnly: true,
    });
    return send(reply, 200, reconciliationPage(frame('reconciliation'), found, lines, noticeOf(request)));
  });
}

function side(l: NumberedLine['report'] | NumberedLine['ours']): SafeHtml | string {
  if (l === null) return '—';
  return html`${money(l.grossMinor, l.currency)} gross · ${money(l.feeMinor, l.currency)} fee · ${money(l.netMinor, l.currency)}
    net<br /><span class="muted">${when(l.settledAt)}</span>`;
}

function reconciliationPage(
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
