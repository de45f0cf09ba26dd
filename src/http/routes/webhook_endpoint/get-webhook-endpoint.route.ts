import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { getEndpoint } from '../../../modules/webhooks/endpoint-service.ts';
import { endpointView } from '../../../modules/webhooks/endpoint-view.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { WebhookEndpointSchema } from '../../schemas/webhook.schema.ts';
import { IdParams, requireIdShape, tenantOf, throwFailure } from '../webhook-route-helpers.ts';

export function registerGetWebhookEndpoint(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/webhook_endpoint/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Retrieve a webhook endpoint',
        description: 'The secret is never part of it (it was shown once, at creation or rotation).',
        params: IdParams('`we_…`'),
        response: { 200: Type.Ref(WebhookEndpointSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('webhookEndpoint', request.params.id, 'webhook endpoint');
      const result = await getEndpoint(deps.webhooks, tenantOf(request), request.params.id);
      if (!result.ok) throwFailure(result);
      return reply.send(endpointView(result.endpoint));
    },
  );
}
