import type { FastifyInstance } from 'fastify';
import { readOverview } from '../../../modules/overview/index.ts';
import { type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';
import { overviewPage } from './overview.view.ts';

/**
 * The dashboard's home (`GET /dashboard`): the overview of the last 30 days, read from the day
 * aggregates the overview-refresh job keeps (docs/overview.md), never from the payments table.
 */
export function registerOverviewScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  dashboard.get('/', sessionRoute('payments.read'), async (request, reply) => {
    const { scope, frame } = signedIn(request);
    const now = deps.clock.now();
    const overview = await readOverview(deps.store, scope, now);
    return send(reply, 200, overviewPage(frame('overview'), overview, now));
  });
}
