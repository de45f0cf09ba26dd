import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { callbackSecretView, rotateCallbackSecret } from '../../../modules/webhooks/callback-secret-service.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS } from '../../../modules/webhooks/webhook-secrets.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CallbackSecretSchema, RotateSecretBodySchema } from '../../schemas/webhook.schema.ts';
import { emptyBodyAsObject } from '../webhook-route-helpers.ts';
import { principalOf } from '../../plugins/auth.ts';

export function registerRotateCallbackSecret(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/callback_secret/rotate',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'rotateCallbackSecret',
        tags: ['webhooks'],
        summary: 'Rotate the callback secret',
        description:
          'Generates a new callback secret and shows it (once). Until `previous_secret_expires_at`, callbacks carry a signature with each secret. The body is optional.',
        body: RotateSecretBodySchema,
        response: { 200: Type.Ref(CallbackSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const seconds = request.body.expire_previous_in_seconds ?? DEFAULT_ROTATION_OVERLAP_SECONDS;
      const rotated = await rotateCallbackSecret(deps.webhooks, principalOf(request), seconds * 1000);
      return reply.send(callbackSecretView(rotated));
    },
  );
}
