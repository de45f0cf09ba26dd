import type { ConnectorRegistry } from '../connectors/core/registry.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Allowlist } from '../lib/net/address-policy.ts';
import type { CheckoutDeps, ExpireDeps, SelectDeps } from '../modules/checkouts/index.ts';
import type { PaymentLinkDeps } from '../modules/payment-links/index.ts';
import type { ReceiveDeps } from '../modules/notifications/receive-notification.ts';
import type { CancelPaymentDeps } from '../modules/payments/cancel-payment.ts';
import type { CreatePaymentDeps } from '../modules/payments/create-payment.ts';
import type { ReconcileDeps } from '../modules/reconciliation/reconcile.ts';
import type { RefundDeps } from '../modules/refunds/create-refund.ts';
import type { SimulateDeps } from '../modules/simulation/simulate-payment.ts';
import type { WebhookDeps } from '../modules/webhooks/endpoint-service.ts';
import type { SandboxProviders } from '../sandbox/sandbox-providers.ts';

/**
 * What route handlers may use, built once by the composition root (src/composition.ts). Routes
 * translate HTTP ↔ module calls and nothing more.
 */
export interface RouteDeps {
  store: Store;
  clock: Clock;
  allowlist: Allowlist;
  publicBaseUrl: string;
  /** Read-only use by routes (GET /payment_method); calls to providers go through the modules. */
  connectors: ConnectorRegistry;
  createPayment: CreatePaymentDeps;
  cancelPayment: CancelPaymentDeps;
  checkout: CheckoutDeps;
  selectCheckout: SelectDeps;
  expireCheckout: ExpireDeps;
  /** Payment links: create, and the visits that create checkouts. */
  paymentLinks: PaymentLinkDeps;
  refund: RefundDeps;
  reconcile: ReconcileDeps;
  simulate: SimulateDeps;
  receive: ReceiveDeps;
  webhooks: WebhookDeps;
  /** Called after a new provider notification is stored, so processing can start at once. */
  onNotificationStored?: () => void;
  /** Mounted under /_sandbox/providers when the providers run in this process. */
  sandboxProviders?: SandboxProviders;
}
