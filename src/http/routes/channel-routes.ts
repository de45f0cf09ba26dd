import type { FastifyInstance } from 'fastify';
import type { CancelPaymentDeps } from '../../modules/payments/cancel-payment.ts';
import type { SimulateDeps } from '../../modules/payments/simulate-payment.ts';
import type { ReceiveDeps } from '../../modules/notifications/receive-notification.ts';
import { registerSandboxProviderRoutes, type SandboxProviders } from '../../sandbox/sandbox-providers.ts';
import { registerCancelPayment } from './payment/cancel-payment.route.ts';
import { registerProviderCallback } from './provider/provider-callback.route.ts';
import { registerSimulatePayment } from './sandbox/simulate-payment.route.ts';

/**
 * The routes of the channels work (issue 3): cancel, simulate, inbound provider notifications,
 * and — in the embedded default — the sandbox providers themselves. One registration function so
 * that app.ts stays a list of calls.
 */
export interface ChannelRouteDeps {
  cancelPayment: CancelPaymentDeps;
  simulate: SimulateDeps;
  receive: ReceiveDeps;
  /** Called after a new notification is stored, so processing can start at once. */
  onNotificationStored?: () => void;
  /** Mounted under /_sandbox/providers when the providers run in this process. */
  sandboxProviders?: SandboxProviders;
}

export async function registerChannelRoutes(app: FastifyInstance, deps: ChannelRouteDeps): Promise<void> {
  registerCancelPayment(app, deps);
  registerSimulatePayment(app, deps);
  await registerProviderCallback(app, deps);
  if (deps.sandboxProviders !== undefined) await registerSandboxProviderRoutes(app, deps.sandboxProviders);
}
