import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { updateEndpoint } from '../../../modules/webhooks/endpoint-service.ts';
import { endpointView } from '../../../modules/webhooks/endpoint-view.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { UpdateWebhookEndpointBodySchema, WebhookEndpointSchema } from '../../schemas/webhook.schema.ts';
import { IdParams, requireIdShape, throwFailure } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

export function registerUpdateWebhookEndpoint(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoint/:id/update',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Change a webhook endpoint',
        description:
          'Changes only the fields sent. Re-enable a disabled endpoint with `{"status": "enabled"}`, then redeliver what it missed (`POST /event/{id}/redeliver`).',
        params: IdParams('`we_…`'),
        body: UpdateWebhookEndpointBodySchema,
        response: { 200: Type.Ref(WebhookEndpointSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('webhookEndpoint', request.params.id, 'webhook endpoint');
      const body = request.body;
      const result = await updateEndpoint(deps.webhooks, principalOf(request), request.params.id, {
        ...(body.url === undefined ? {} : { url: body.url }),
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.enabled_events === undefined ? {} : { enabledEvents: body.enabled_events }),
        ...(body.status === undefined ? {} : { status: body.status }),
      });
      if (!result.ok) throwFailure(result);
      return reply.send(endpointView(result.endpoint));
    },
  );
}
