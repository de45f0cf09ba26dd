import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { findEvent } from '../../../modules/events/event-log-repo.ts';
import { eventObjectTemplate } from '../../../catalogue/event-examples.ts';
import { eventView } from '../../../modules/events/event-view.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { EventSchema } from '../../schemas/webhook.schema.ts';
import { IdParams, requireIdShape, tenantOf } from '../webhook-route-helpers.ts';

export function registerGetEvent(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/event/:id',
    {
      schema: {
        operationId: 'getEvent',
        tags: ['events'],
        summary: 'Retrieve an event',
        description: 'Exactly the JSON that webhook deliveries of this event carry as their body.',
        params: IdParams('`evt_…`'),
        response: { 200: Type.Ref(EventSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('event', request.params.id, 'event');
      const t = tenantOf(request);
      const event = await findEvent(deps.store, t.merchantId, t.environment, request.params.id);
      if (event === undefined) throw new ApiError('resource_not_found', 'No such event.');
      return reply.send(eventView(event.payload, eventObjectTemplate(event.payload.type)));
    },
  );
}
