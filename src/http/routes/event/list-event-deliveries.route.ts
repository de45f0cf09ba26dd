import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { findEvent } from '../../../modules/events/event-log-repo.ts';
import { listDeliveriesOfEvent } from '../../../modules/webhooks/delivery-repo.ts';
import { deliveryView } from '../../../modules/webhooks/delivery-service.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { listOf, WebhookDeliverySchema } from '../../schemas/webhook.schema.ts';
import { IdParams, requireIdShape, tenantOf } from '../webhook-route-helpers.ts';

const MAX_DELIVERIES = 100;

export function registerListEventDeliveries(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/event/:id/deliveries',
    {
      schema: {
        operationId: 'listEventDeliveries',
        tags: ['events'],
        summary: 'Deliveries of an event and their attempts',
        description:
          'One delivery per target (endpoint or callback_url) and per redelivery, oldest first, each with every HTTP attempt: status, duration, the start of the answer. A delivery whose attempts are exhausted has `status: failed`, `failure_reason: exhausted`.',
        params: IdParams('`evt_…`'),
        response: { 200: listOf(WebhookDeliverySchema, 'Deliveries, oldest first.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('event', request.params.id, 'event');
      const t = tenantOf(request);
      const event = await findEvent(deps.store, t.merchantId, t.environment, request.params.id);
      if (event === undefined) throw new ApiError('resource_not_found', 'No such event.');
      const rows = await listDeliveriesOfEvent(deps.store, t.merchantId, t.environment, event.id, MAX_DELIVERIES + 1);
      return reply.send({
        object: 'list',
        data: rows.slice(0, MAX_DELIVERIES).map(deliveryView),
        has_more: rows.length > MAX_DELIVERIES,
      });
    },
  );
}
