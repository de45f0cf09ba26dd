import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { findSettlement } from '../../../modules/settlement/settlement-repo.ts';
import { settlementView } from '../../../modules/settlement/settlement-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { SettlementSchema } from '../../schemas/settlement.schema.ts';

export function registerGetSettlement(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/settlement/:id',
    {
      schema: {
        operationId: 'getSettlement',
        tags: ['settlement'],
        summary: 'Retrieve a settlement',
        description:
          "One settlement batch with its payments: gross, the provider's fees and the net it paid out, per payment and in total (docs/money.md). Another merchant's or environment's id answers 404 like an unknown one.",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`stl_…`' }) }),
        response: { 200: Type.Ref(SettlementSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const found = isIdOf('settlement', id)
        ? await findSettlement(deps.store, principal.merchantId, principal.environment, id)
        : undefined;
      if (found === undefined) throw new ApiError('resource_not_found', 'No such settlement.');
      return reply.send(settlementView(found.settlement, found.lines));
    },
  );
}
