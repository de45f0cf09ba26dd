import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { listEndpoints } from '../../../modules/webhooks/endpoint-repo.ts';
import { endpointView } from '../../../modules/webhooks/endpoint-view.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { listOf, WebhookEndpointSchema } from '../../schemas/webhook.schema.ts';
import { tenantOf } from '../webhook-route-helpers.ts';

export function registerListWebhookEndpoints(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/webhook_endpoint',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhooks'],
        summary: 'List webhook endpoints',
        description: 'Every endpoint of this merchant in this environment (at most 20), oldest first.',
        response: { 200: listOf(WebhookEndpointSchema, 'Webhook endpoints.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const t = tenantOf(request);
      const endpoints = await listEndpoints(deps.store, t.merchantId, t.environment);
      return reply.send({ object: 'list', data: endpoints.map(endpointView), has_more: false });
    },
  );
}
