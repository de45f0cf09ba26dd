import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { findRefund } from '../../../modules/refunds/refund-repo.ts';
import { refundView } from '../../../modules/refunds/refund-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { RefundSchema } from '../../schemas/refund.schema.ts';

export function registerGetRefund(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/refund/:id',
    {
      schema: {
        operationId: 'getRefund',
        tags: ['refunds'],
        summary: 'Retrieve a refund',
        description:
          "Returns the refund with its current status. Another merchant's or the other environment's id answers 404, exactly like an unknown id.",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`ref_…`' }) }),
        response: { 200: Type.Ref(RefundSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const refund = isIdOf('refund', id)
        ? await findRefund(deps.store, principal.merchantId, principal.environment, id)
        : undefined;
      if (refund === undefined) throw new ApiError('resource_not_found', 'No such refund.');
      return reply.send(refundView(refund));
    },
  );
}
