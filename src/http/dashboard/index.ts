import type { FastifyInstance } from 'fastify';
import { createDashboardSessions } from '../../modules/team/index.ts';
import { type DashboardDeps, installDashboardPlumbing, type ScreenDeps } from './dashboard-plugin.ts';
import { registerBalanceScreen } from './screens/balance.screen.ts';
import { registerCheckoutDetailScreen } from './screens/checkout-detail.screen.ts';
import { registerCheckoutListScreen } from './screens/checkout-list.screen.ts';
import { registerKeysScreen } from './screens/keys.screen.ts';
import { registerPaymentLinkDetailScreen } from './screens/payment-link-detail.screen.ts';
import { registerPaymentLinkListScreen } from './screens/payment-link-list.screen.ts';
import { registerPaymentDetailScreen } from './screens/payment-detail.screen.ts';
import { registerPaymentListScreen } from './screens/payment-list.screen.ts';
import { registerReconciliationDetailScreen } from './screens/reconciliation-detail.screen.ts';
import { registerReconciliationListScreen } from './screens/reconciliation-list.screen.ts';
import { registerSettlementDetailScreen } from './screens/settlement-detail.screen.ts';
import { registerSettlementListScreen } from './screens/settlement-list.screen.ts';
import { registerSignInScreen } from './screens/sign-in.screen.ts';
import { registerWebhooksScreen } from './screens/webhooks.screen.ts';

export type { DashboardDeps } from './dashboard-plugin.ts';

/** Every screen, one file each under `screens/`: a new screen adds its line here and its tab in dashboard-layout.ts. */
const SCREENS: readonly ((dashboard: FastifyInstance, deps: ScreenDeps) => void)[] = [
  registerSignInScreen,
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
  await app.register(
    async (dashboard) => {
      installDashboardPlumbing(dashboard, screenDeps);
      for (const registerScreen of SCREENS) registerScreen(dashboard, screenDeps);
    },
    { prefix: '/dashboard' },
  );
}
