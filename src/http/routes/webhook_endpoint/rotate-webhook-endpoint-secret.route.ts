import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { rotateEndpointSecret } from '../../../modules/webhooks/endpoint-service.ts';
import { endpointView } from '../../../modules/webhooks/endpoint-view.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '../../../modules/webhooks/webhook-secrets.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { RotateSecretBodySchema, WebhookEndpointWithSecretSchema } from '../../schemas/webhook.schema.ts';
import { emptyBodyAsObject, IdParams, requireIdShape, throwFailure } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

export function registerRotateWebhookEndpointSecret(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/webhook_endpoint/:id/rotate_secret',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags: ['webhooks'],
        summary: "Rotate an endpoint's signing secret",
        description:
          'Generates a new secret and returns it (once). Until `previous_secret_expires_at`, every request carries two signatures, one per secret, so receivers can switch without losing events. The body is optional.',
        params: IdParams('`we_…`'),
        body: RotateSecretBodySchema,
        response: { 200: Type.Ref(WebhookEndpointWithSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      requireIdShape('webhookEndpoint', request.params.id, 'webhook endpoint');
      const seconds = request.body.expire_previous_in_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
      const result = await rotateEndpointSecret(deps.webhooks, principalOf(request), request.params.id, seconds * 1000);
      if (!result.ok) throwFailure(result);
      return reply.send({ ...endpointView(result.endpoint), secret: result.secret });
    },
  );
}
