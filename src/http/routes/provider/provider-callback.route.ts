import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { receiveNotification } from '../../../modules/notifications/receive-notification.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

const AckSchema = Type.Object(
  {
    received: Type.Literal(true),
    notification_id: Type.String({ description: '`ntf_…`: our id of the stored notification.' }),
    duplicate: Type.Boolean({ description: 'True when this provider event was received before (nothing changes twice).' }),
  },
  { additionalProperties: false },
);

/**
 * Inbound provider notifications. The signature covers the exact bytes, so this route keeps the
 * body as raw text (its own content-type parser, in its own encapsulated scope) and hands it to
 * the connector unparsed. Public: providers have no API key; the signature is the authentication.
 */
export async function registerProviderCallback(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/provider/:connector/callback',
      {
        config: { public: true },
        schema: {
          operationId: 'receiveProviderNotification',
          tags: ['providers'],
          summary: 'Inbound, signed provider notification',
          description:
            'For payment providers, not merchants. The connector verifies the signature over the raw body and its timestamp (300 s window); a forged, tampered or replayed-late notification gets 401 `invalid_signature` and changes nothing. A valid one is stored, acknowledged with 200, and processed afterwards; a redelivery of the same provider event is acknowledged again and changes nothing.',
          params: Type.Object({ connector: Type.String({ maxLength: 64 }) }),
          response: { 200: AckSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const headers: Record<string, string | undefined> = {};
        for (const [name, value] of Object.entries(request.headers))
          headers[name] = Array.isArray(value) ? value.join(',') : value;
        const rawBody = typeof request.body === 'string' ? request.body : '';
        const result = await receiveNotification(deps.receive, request.params.connector, { rawBody, headers });
        switch (result.kind) {
          case 'unknown_connector':
            throw new ApiError('resource_not_found', 'No such connector.');
          case 'rejected':
            throw new ApiError('invalid_signature', 'The notification signature is missing, wrong or outside its time window.', {
              details: [{ issue: result.reason }],
            });
          case 'malformed':
            throw new ApiError('invalid_request', 'The notification is not readable.', {
              details: [{ issue: 'malformed_notification' }],
            });
          case 'accepted':
            if (!result.duplicate) deps.onNotificationStored?.();
            return reply.send({ received: true as const, notification_id: result.notificationId, duplicate: result.duplicate });
        }
      },
    );
  });
}
