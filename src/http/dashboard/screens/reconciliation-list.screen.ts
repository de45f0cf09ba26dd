import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { createReconciliation } from '../../../modules/reconciliation/reconcile.ts';
import { listRecentReconciliations, type Reconciliation } from '../../../modules/reconciliation/reconciliation-repo.ts';
import { html } from '../../pages/html.ts';
import { csrfField, type Frame, type Notice, option, page, status, when } from '../dashboard-layout.ts';
import {
  DAY_MS,
  formKeyOf,
  formOf,
  newFormKey,
  noticeOf,
  PAGE_SIZE,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';

/**
 * Reconciliation (`/dashboard/reconciliation`): the form that reconciles a connector's settlement
 * report over a window, and the recent reconciliations. A new one opens its own screen.
 */
export function registerReconciliationListScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (request: FastifyRequest, reply: FastifyReply, statusCode: number, notice: Notice) => {
    const { scope, frame } = signedIn(request);
    const recent = await listRecentReconciliations(deps.store, scope.merchantId, scope.environment, PAGE_SIZE);
    const now = deps.clock.now();
    const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
    return send(
      reply,
      statusCode,
      reconciliationsPage(frame('reconciliation'), {
        recent,
        connectors: deps.connectors
          .enabledFor(scope.environment)
          .filter((c) => c.supports.settlement)
          .map((c) => c.connector),
        idempotencyKey: newFormKey(),
        defaults: {
          from: toMinuteText(new Date(today.getTime() - DAY_MS)),
          to: toMinuteText(new Date(today.getTime() + DAY_MS)),
        },
        notice,
      }),
    );
  };

  dashboard.get('/reconciliation', sessionRoute('payments.read'), async (request, reply) =>
    show(request, reply, 200, noticeOf(request)),
  );

  dashboard.post('/reconciliation', sessionRoute('reconciliation.run'), async (request, reply) => {
    const form = formOf(request);
    const from = utcMinute(form['from']);
    const to = utcMinute(form['to']);
    if (from === undefined || to === undefined) {
      return show(request, reply, 400, { kind: 'bad', text: 'Give the window as dates and times (UTC).' });
    }
    const result = await createReconciliation(
      deps.reconcile,
      signedIn(request).principal,
      { connector: form['connector'] ?? '', from, to },
      formKeyOf(form),
    );
    if (result.kind === 'failure') {
      const details = result.details
        .map((x) => (typeof x['message'] === 'string' ? x['message'] : ''))
        .filter((m) => m !== '')
        .join('; ');
      return show(request, reply, httpStatusOf(result.code), {
        kind: 'bad',
        text: details === '' ? result.message : `${result.message} ${details}`,
      });
    }
    // The operation answers with the API's stored JSON; its id is all the page needs.
    const id = (JSON.parse(result.body) as { id?: unknown }).id;
    if (typeof id !== 'string' || !isIdOf('reconciliation', id)) throw new Error('reconciliation answer without an id');
    return redirect(reply, `/dashboard/reconciliation/${id}`);
  });
}

/** A `datetime-local` value (`YYYY-MM-DDTHH:MM[:SS]`), read as UTC. */
function utcMinute(text: string | undefined): Date | undefined {
  if (text === undefined || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return undefined;
  const d = new Date(`${text.length === 16 ? `${text}:00` : text}.000Z`);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

const toMinuteText = (d: Date) => d.toISOString().slice(0, 16);

function reconciliationsPage(
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
          !frame.may('reconciliation.run')
            ? html`<p class="muted">Your role does not run reconciliations.</p>`
            : options.connectors.length === 0
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
