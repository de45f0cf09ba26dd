import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createEndpoint } from '../../../modules/webhooks/endpoint-service.ts';
import { endpointView } from '../../../modules/webhooks/endpoint-view.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CreateWebhookEndpointBodySchema, WebhookEndpointWithSecretSchema } from '../../schemas/webhook.schema.ts';
import { throwFailure } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

export function registerCreateWebhookEndpoint(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoint/create',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Register a webhook endpoint',
        description:
          'Registers a URL that receives signed events (Standard Webhooks). The answer carries the signing secret `whsec_…` — the only time it is shown. At most 20 endpoints per merchant and environment (else 422 `webhook_endpoint_limit_reached`).',
        body: CreateWebhookEndpointBodySchema,
        response: { 201: Type.Ref(WebhookEndpointWithSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const result = await createEndpoint(deps.webhooks, principalOf(request), {
        url: body.url,
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.enabled_events === undefined ? {} : { enabledEvents: body.enabled_events }),
        ...(body.status === undefined ? {} : { status: body.status }),
      });
      if (!result.ok) throwFailure(result);
      return reply.code(201).send({ ...endpointView(result.endpoint), secret: result.secret });
    },
  );
}
