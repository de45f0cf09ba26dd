import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { callbackSecretView, readCallbackSecret } from '../../../modules/webhooks/callback-secret-service.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CallbackSecretSchema } from '../../schemas/webhook.schema.ts';
import { tenantOf } from '../webhook-route-helpers.ts';

export function registerGetCallbackSecret(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/callback_secret',
    {
      schema: {
        operationId: 'getCallbackSecret',
        tags: ['webhooks'],
        summary: 'Read the callback secret (once)',
        description:
          "The secret that signs requests to payments' `callback_url` in this environment. The first read shows it; later reads show `secret: null`. Lost it? Rotate it.",
        response: { 200: Type.Ref(CallbackSecretSchema), ...errorResponses },
      },
    },
    async (request, reply) => reply.send(callbackSecretView(await readCallbackSecret(deps.webhooks, tenantOf(request)))),
  );
}
