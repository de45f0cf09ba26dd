import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { deleteEndpoint } from '../../../modules/webhooks/endpoint-service.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { IdParams, requireIdShape, throwFailure } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

const DeletedSchema = Type.Object(
  { id: Type.String(), object: Type.Literal('webhook_endpoint'), deleted: Type.Literal(true) },
  { additionalProperties: false },
);

export function registerDeleteWebhookEndpoint(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().delete(
    '/webhook_endpoint/:id',
    {
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        description:
          'Stops all deliveries to it at once (pending ones are canceled). Its delivery history stays in the event log.',
        params: IdParams('`we_…`'),
        response: { 200: DeletedSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('webhookEndpoint', request.params.id, 'webhook endpoint');
      const result = await deleteEndpoint(deps.webhooks, principalOf(request), request.params.id);
      if (!result.ok) throwFailure(result);
      return reply.send({ id: request.params.id, object: 'webhook_endpoint', deleted: true });
    },
  );
}
