import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../route-deps.ts';
import { WEBHOOK_SCHEMAS } from '../schemas/webhook.schema.ts';
import { registerGetCallbackSecret } from './callback_secret/get-callback-secret.route.ts';
import { registerRotateCallbackSecret } from './callback_secret/rotate-callback-secret.route.ts';
import { registerGetEvent } from './event/get-event.route.ts';
import { registerListEventDeliveries } from './event/list-event-deliveries.route.ts';
import { registerListEvents } from './event/list-events.route.ts';
import { registerRedeliverEvent } from './event/redeliver-event.route.ts';
import { registerCreateWebhookEndpoint } from './webhook_endpoint/create-webhook-endpoint.route.ts';
import { registerDeleteWebhookEndpoint } from './webhook_endpoint/delete-webhook-endpoint.route.ts';
import { registerGetWebhookEndpoint } from './webhook_endpoint/get-webhook-endpoint.route.ts';
import { registerListWebhookEndpoints } from './webhook_endpoint/list-webhook-endpoints.route.ts';
import { registerRotateWebhookEndpointSecret } from './webhook_endpoint/rotate-webhook-endpoint-secret.route.ts';
import { registerUpdateWebhookEndpoint } from './webhook_endpoint/update-webhook-endpoint.route.ts';

/** Shared schemas (before swagger reads them) — call before registering @fastify/swagger. */
export function addWebhookSchemas(app: FastifyInstance): void {
  for (const schema of WEBHOOK_SCHEMAS) app.addSchema(schema);
}

/** Webhook endpoints, the event log and the callback secret (one file per endpoint). */
export function registerWebhookRoutes(app: FastifyInstance, deps: RouteDeps): void {
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
}
