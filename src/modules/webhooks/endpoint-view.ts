import type { WebhookEndpoint } from './webhook-types.ts';

/**
 * The endpoint as the API and the `webhook_endpoint.disabled` event show it. The signing secret is
 * never part of it: only the create and rotate answers add `secret`, once.
 */
export function endpointView(e: WebhookEndpoint) {
  return {
    id: e.id,
    object: 'webhook_endpoint' as const,
    environment: e.environment,
    url: e.url,
    description: e.description,
    enabled_events: e.enabledEvents,
    status: e.status,
    disabled_reason: e.disabledReason,
    failing_since: e.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: e.previousSecretExpiresAt?.toISOString() ?? null,
    version: e.version,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export type EndpointView = ReturnType<typeof endpointView>;
