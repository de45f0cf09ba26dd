import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isIdOf } from '../../../lib/ids.ts';
import { findEvent, listEvents } from '../../../modules/events/event-log-repo.ts';
import { eventObjectTemplate } from '../../../catalogue/event-examples.ts';
import { eventView } from '../../../modules/events/event-view.ts';
import { unknownCursorError } from '../../cursor-page.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { EventSchema, listOf } from '../../schemas/webhook.schema.ts';
import { tenantOf } from '../webhook-route-helpers.ts';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'An event id: the page starts after it. An id that is not one of your events in this environment is a 400 `unknown_cursor`.',
      }),
    ),
    type: Type.Optional(
      Type.String({
        maxLength: 100,
        pattern: '^[a-z_]+(\\.[a-z_]+)*(\\.\\*)?$',
        description: 'An event type (`payment.succeeded`) or a group (`payment.*`).',
      }),
    ),
    object_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only events about this object (`pay_…`, `ref_…`, …).' })),
  },
  { additionalProperties: false },
);

export function registerListEvents(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/event',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['events'],
        summary: 'List events',
        description: 'Newest first. Events are kept for 90 days (EVENT_RETENTION_DAYS).',
        querystring: Query,
        response: { 200: listOf(EventSchema, 'Events, newest first.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const t = tenantOf(request);
      const q = request.query;
      const limit = q.limit ?? 20;
      let after: { createdAt: Date; id: string } | undefined;
      if (q.starting_after !== undefined) {
        const cursor = isIdOf('event', q.starting_after)
          ? await findEvent(deps.store, t.merchantId, t.environment, q.starting_after)
          : undefined;
        if (cursor === undefined) throw unknownCursorError('events');
        after = { createdAt: cursor.createdAt, id: cursor.id };
      }
      const rows = await listEvents(deps.store, t.merchantId, t.environment, {
        limit: limit + 1,
        ...(q.type === undefined ? {} : { type: q.type }),
        ...(q.object_id === undefined ? {} : { objectId: q.object_id }),
        ...(after === undefined ? {} : { after }),
      });
      return reply.send({
        object: 'list',
        data: rows.slice(0, limit).map((r) => eventView(r.payload, eventObjectTemplate(r.payload.type))),
        has_more: rows.length > limit,
      });
    },
  );
}
