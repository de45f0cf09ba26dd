import type { FastifyInstance } from 'fastify';
import { registerSandboxProviderRoutes } from '../../sandbox/sandbox-providers.ts';
import type { RouteDeps } from '../route-deps.ts';
import { registerListAuditLog } from './audit_log/list-audit-log.route.ts';
import { registerGetBalance } from './balance/get-balance.route.ts';
import { registerCreateCheckout } from './checkout/create-checkout.route.ts';
import { registerExpireCheckout } from './checkout/expire-checkout.route.ts';
import { registerGetCheckout } from './checkout/get-checkout.route.ts';
import { registerListCheckouts } from './checkout/list-checkouts.route.ts';
import { registerSelectCheckout } from './checkout/select-checkout.route.ts';
import { registerCreatePaymentLink } from './payment_link/create-payment-link.route.ts';
import { registerDeactivatePaymentLink } from './payment_link/deactivate-payment-link.route.ts';
import { registerGetPaymentLink } from './payment_link/get-payment-link.route.ts';
import { registerListPaymentLinks } from './payment_link/list-payment-links.route.ts';
import { registerStartPaymentLinkCheckout } from './payment_link/start-payment-link-checkout.route.ts';
import { registerGetCallbackSecret } from './callback_secret/get-callback-secret.route.ts';
import { registerRotateCallbackSecret } from './callback_secret/rotate-callback-secret.route.ts';
import { registerGetEvent } from './event/get-event.route.ts';
import { registerListEventDeliveries } from './event/list-event-deliveries.route.ts';
import { registerListEvents } from './event/list-events.route.ts';
import { registerRedeliverEvent } from './event/redeliver-event.route.ts';
import { type Readiness, registerHealth } from './ops/health.route.ts';
import { registerReference } from './ops/reference.route.ts';
import { registerPayPage } from './pay/get-pay-page.route.ts';
import { registerPayStatus } from './pay/get-pay-status.route.ts';
import { registerSelectOnPage } from './pay/select-on-page.route.ts';
import { registerStartOnPage } from './pay/start-on-page.route.ts';
import { registerCancelPayment } from './payment/cancel-payment.route.ts';
import { registerErasePayerData } from './payment/erase-payer-data.route.ts';
import { registerCreatePayment } from './payment/create-payment.route.ts';
import { registerGetPayment } from './payment/get-payment.route.ts';
import { registerListPayments } from './payment/list-payments.route.ts';
import { registerListPaymentMethods } from './payment_method/list-payment-methods.route.ts';
import { registerProviderCallback } from './provider/provider-callback.route.ts';
import { registerCreateReconciliation } from './reconciliation/create-reconciliation.route.ts';
import { registerGetReconciliation } from './reconciliation/get-reconciliation.route.ts';
import { registerListReconciliationLines } from './reconciliation/list-reconciliation-lines.route.ts';
import { registerCreateRefund } from './refund/create-refund.route.ts';
import { registerGetRefund } from './refund/get-refund.route.ts';
import { registerSimulatePayment } from './sandbox/simulate-payment.route.ts';
import { registerGetSettlement } from './settlement/get-settlement.route.ts';
import { registerListSettlements } from './settlement/list-settlements.route.ts';
import { registerGetSettlementException } from './settlement_exception/get-settlement-exception.route.ts';
import { registerListSettlementExceptions } from './settlement_exception/list-settlement-exceptions.route.ts';
import { registerCreateWebhookEndpoint } from './webhook_endpoint/create-webhook-endpoint.route.ts';
import { registerDeleteWebhookEndpoint } from './webhook_endpoint/delete-webhook-endpoint.route.ts';
import { registerGetWebhookEndpoint } from './webhook_endpoint/get-webhook-endpoint.route.ts';
import { registerListWebhookEndpoints } from './webhook_endpoint/list-webhook-endpoints.route.ts';
import { registerRotateWebhookEndpointSecret } from './webhook_endpoint/rotate-webhook-endpoint-secret.route.ts';
import { registerUpdateWebhookEndpoint } from './webhook_endpoint/update-webhook-endpoint.route.ts';

/**
 * Every endpoint of the API, one file each under `routes/<resource>/` (the folder is the path's
 * first segment). The order here is the order of /openapi.json's paths: add a new endpoint in
 * its resource's place.
 */
export function registerOperationsRoutes(app: FastifyInstance, deps: { store: RouteDeps['store']; readiness: Readiness }): void {
  registerHealth(app, deps);
  registerReference(app);
}

export async function registerApiRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  registerCreatePayment(app, deps);
  registerGetPayment(app, deps);
  registerListPayments(app, deps);
  registerListPaymentMethods(app, deps);
  registerPayPage(app, deps);
  registerPayStatus(app, deps);
  registerSelectOnPage(app, deps);
  registerStartOnPage(app, deps);
  registerCreateWebhookEndpoint(app, deps);
  registerListWebhookEndpoints(app, deps);
  registerGetWebhookEndpoint(app, deps);
  registerUpdateWebhookEndpoint(app, deps);
  registerRotateWebhookEndpointSecret(app, deps);
  registerDeleteWebhookEndpoint(app, deps);
  registerListEvents(app, deps);
  registerGetEvent(app, deps);
  registerListEventDeliveries(app, deps);
  registerRedeliverEvent(app, deps);
  registerGetCallbackSecret(app, deps);
  registerRotateCallbackSecret(app, deps);
  registerListSettlements(app, deps);
  registerGetSettlement(app, deps);
  registerListSettlementExceptions(app, deps);
  registerGetSettlementException(app, deps);
  registerCreateReconciliation(app, deps);
  registerGetReconciliation(app, deps);
  registerListReconciliationLines(app, deps);
  registerCreateRefund(app, deps);
  registerGetRefund(app, deps);
  registerGetBalance(app, deps);
  registerCancelPayment(app, deps);
  registerErasePayerData(app, deps);
  registerCreateCheckout(app, deps);
  registerGetCheckout(app, deps);
  registerListCheckouts(app, deps);
  registerExpireCheckout(app, deps);
  registerSelectCheckout(app, deps);
  registerCreatePaymentLink(app, deps);
  registerGetPaymentLink(app, deps);
  registerListPaymentLinks(app, deps);
  registerDeactivatePaymentLink(app, deps);
  registerStartPaymentLinkCheckout(app, deps);
  registerListAuditLog(app, deps);
  registerSimulatePayment(app, deps);
  await registerProviderCallback(app, deps);
  if (deps.sandboxProviders !== undefined) await registerSandboxProviderRoutes(app, deps.sandboxProviders);
}
