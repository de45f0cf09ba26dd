import type { FastifyInstance } from 'fastify';
import { endpointHealth, type EndpointHealth } from '../../../modules/webhooks/delivery-repo.ts';
import { listEndpoints } from '../../../modules/webhooks/endpoint-repo.ts';
import type { WebhookEndpoint } from '../../../modules/webhooks/webhook-types.ts';
import { html } from '../../pages/html.ts';
import { type Frame, page, status, when } from '../dashboard-layout.ts';
import { DAY_MS, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';

const HEALTH_WINDOW_DAYS = 7;

/** The webhook endpoints with their health over the last week (`GET /dashboard/webhooks`). */
export function registerWebhooksScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/webhooks', sessionRoute('webhooks.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const endpoints = await listEndpoints(deps.store, scope.merchantId, scope.environment);
    const since = new Date(deps.clock.now().getTime() - HEALTH_WINDOW_DAYS * DAY_MS);
    const health = await endpointHealth(
      deps.store,
      scope,
      endpoints.map((e) => e.id),
      since,
    );
    return send(reply, 200, webhooksPage(frame('webhooks'), endpoints, health, HEALTH_WINDOW_DAYS));
  });
}

function webhooksPage(
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
