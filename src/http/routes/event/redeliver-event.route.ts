import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { deliveryView, type RedeliveryTarget, redeliverEvent } from '../../../modules/webhooks/delivery-service.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { listOf, RedeliverBodySchema, WebhookDeliverySchema } from '../../schemas/webhook.schema.ts';
import { emptyBodyAsObject, IdParams, requireIdShape, throwFailure } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

export function registerRedeliverEvent(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/event/:id/redeliver',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'redeliverEvent',
        tags: ['events'],
        summary: 'Send an event again',
        description:
          'Schedules new deliveries of the event at once, with a fresh retry schedule: to one endpoint (`endpoint_id`), to the payment’s callback_url (`callback_url: true`), or (empty body) to every enabled endpoint subscribed to its type and the callback_url. The `webhook-id` stays the event id. `endpoint_id` and `callback_url` together are `invalid_value`; `callback_url: true` for an event whose payment has none is `no_callback_url`; a disabled endpoint is 409 `webhook_endpoint_disabled`.',
        params: IdParams('`evt_…`'),
        body: RedeliverBodySchema,
        response: { 202: listOf(WebhookDeliverySchema, 'The deliveries scheduled.'), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('event', request.params.id, 'event');
      const body = request.body;
      if (body.endpoint_id !== undefined && body.callback_url === true) {
        throw new ApiError('invalid_request', 'The request has invalid fields.', {
          details: [
            { field: 'callback_url', issue: 'invalid_value', message: 'send either endpoint_id or callback_url, not both' },
          ],
        });
      }
      let target: RedeliveryTarget = { kind: 'all' };
      if (body.endpoint_id !== undefined) {
        if (!isIdOf('webhookEndpoint', body.endpoint_id)) throw new ApiError('resource_not_found', 'No such webhook endpoint.');
        target = { kind: 'endpoint', endpointId: body.endpoint_id };
      } else if (body.callback_url === true) {
        target = { kind: 'callback_url' };
      }
      const result = await redeliverEvent(deps.webhooks, principalOf(request), request.params.id, target);
      if (!result.ok) throwFailure(result);
      return reply.code(202).send({ object: 'list', data: result.deliveries.map(deliveryView), has_more: false });
    },
  );
}
