import type { ConnectorRegistry } from '../connectors/core/registry.ts';
import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Allowlist } from '../lib/net/address-policy.ts';
import type { CreatePaymentDeps } from '../modules/payments/create-payment.ts';
import type { WebhookDeps } from '../modules/webhooks/endpoint-service.ts';

/** What route handlers may use. Routes translate HTTP ↔ module calls and nothing more. */
export interface RouteDeps {
  store: Store;
  clock: Clock;
  allowlist: Allowlist;
  publicBaseUrl: string;
  createPayment: CreatePaymentDeps;
  /** Read-only use by routes (GET /payment_method); calls to providers go through the modules. */
  connectors: ConnectorRegistry;
  webhooks: WebhookDeps;
}
