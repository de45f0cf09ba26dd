import type { FastifyInstance } from 'fastify';
import { createDashboardSessions } from '../../modules/team/index.ts';
import { type DashboardDeps, type DashboardRoute, installDashboardPlumbing, type ScreenDeps } from './dashboard-plugin.ts';
import { registerAuditScreen } from './screens/audit.screen.ts';
import { registerBalanceScreen } from './screens/balance.screen.ts';
import { registerCheckoutDetailScreen } from './screens/checkout-detail.screen.ts';
import { registerCheckoutListScreen } from './screens/checkout-list.screen.ts';
import { registerKeysScreen } from './screens/keys.screen.ts';
import { registerOverviewScreen } from './screens/overview.screen.ts';
import { registerPaymentLinkDetailScreen } from './screens/payment-link-detail.screen.ts';
import { registerPaymentLinkListScreen } from './screens/payment-link-list.screen.ts';
import { registerPaymentDetailScreen } from './screens/payment-detail.screen.ts';
import { registerPaymentListScreen } from './screens/payment-list.screen.ts';
import { registerReconciliationDetailScreen } from './screens/reconciliation-detail.screen.ts';
import { registerReconciliationListScreen } from './screens/reconciliation-list.screen.ts';
import { registerSettlementDetailScreen } from './screens/settlement-detail.screen.ts';
import { registerSettlementListScreen } from './screens/settlement-list.screen.ts';
import { registerInvitationScreen } from './screens/invitation.screen.ts';
import { registerSignInScreen } from './screens/sign-in.screen.ts';
import { registerTeamScreen } from './screens/team.screen.ts';
import { registerWebhooksScreen } from './screens/webhooks.screen.ts';

export type { DashboardDeps, DashboardRoute } from './dashboard-plugin.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every dashboard route with the permission it names (tests check each against each role). */
    dashboardRoutes: readonly DashboardRoute[];
  }
}

/** Every screen, one file each under `screens/`: a new screen adds its line here and its tab in dashboard-layout.ts. */
const SCREENS: readonly ((dashboard: FastifyInstance, deps: ScreenDeps) => void)[] = [
  registerSignInScreen,
  registerOverviewScreen,
  registerPaymentListScreen,
  registerPaymentDetailScreen,
  registerCheckoutListScreen,
  registerCheckoutDetailScreen,
  registerPaymentLinkListScreen,
  registerPaymentLinkDetailScreen,
  registerWebhooksScreen,
  registerKeysScreen,
  registerBalanceScreen,
  registerSettlementListScreen,
  registerSettlementDetailScreen,
  registerReconciliationListScreen,
  registerReconciliationDetailScreen,
  registerInvitationScreen,
  registerTeamScreen,
  registerAuditScreen,
];

/**
 * The merchant dashboard under /dashboard (docs/dashboard.md, decision 0019): server-rendered
 * pages over the same module functions the API routes call, with the session's principal in place
 * of an API key's. Not part of the API: hidden from the OpenAPI document, marked `public` for the
 * bearer hook, and authenticated by the session cookie instead (dashboard-plugin.ts).
 */
export async function registerDashboard(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const screenDeps: ScreenDeps = {
    ...deps,
    sessions: createDashboardSessions({ store: deps.store, clock: deps.clock, secret: deps.secret }),
  };
  const routes: DashboardRoute[] = [];
  app.decorate('dashboardRoutes', routes);
  await app.register(
    async (dashboard) => {
      recordDashboardRoutes(dashboard, routes);
      installDashboardPlumbing(dashboard, screenDeps);
      for (const registerScreen of SCREENS) registerScreen(dashboard, screenDeps);
    },
    { prefix: '/dashboard' },
  );
}

/**
 * Records each route registered on `dashboard` (after this call) with its permission, and refuses one
 * that names none: registering it throws, so the app does not start (docs/team.md).
 */
export function recordDashboardRoutes(dashboard: FastifyInstance, routes: DashboardRoute[]): void {
  dashboard.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as { dashboardPublic?: boolean; permission?: DashboardRoute['permission'] };
    const permission = config.dashboardPublic === true ? 'public' : config.permission;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (permission === undefined) {
      throw new Error(`dashboard route ${methods.join(',')} ${route.url} names no permission (sessionRoute(permission))`);
    }
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, url: route.url, permission });
  });
}
