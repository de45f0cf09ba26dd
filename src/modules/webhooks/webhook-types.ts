import type { Environment } from '../../kernel/index.ts';

export type EndpointStatus = 'enabled' | 'disabled';
/** Why an endpoint is disabled: by the merchant, by a 410 answer, or after failing for days. */
export type DisabledReason = 'manual' | 'gone' | 'failing';

export interface WebhookEndpoint {
  id: string;
  merchantId: string;
  environment: Environment;
  url: string;
  description: string | null;
  /** Event types, or ['*'] for every type. */
  enabledEvents: string[];
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';
export type DeliveryFailureReason = 'exhausted' | 'gone' | 'endpoint_disabled' | 'endpoint_deleted';
