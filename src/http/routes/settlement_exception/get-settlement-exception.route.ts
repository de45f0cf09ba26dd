import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { findSettlementException } from '../../../modules/settlement/settlement-exception-repo.ts';
import { settlementExceptionView } from '../../../modules/settlement/settlement-exception-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { SettlementExceptionSchema } from '../../schemas/settlement-exception.schema.ts';

export function registerGetSettlementException(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/settlement_exception/:id',
    {
      schema: {
        operationId: 'getSettlementException',
        tags: ['settlement'],
        summary: 'Retrieve a settlement exception',
        description:
          "A settlement report line the provider sent for one of your payments that Tributary did not apply, and whether an operator resolved it (docs/money.md). Another merchant's or environment's id answers 404 like an unknown one.",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`stx_…`' }) }),
        response: { 200: Type.Ref(SettlementExceptionSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const found = isIdOf('settlementException', id)
        ? await findSettlementException(deps.store, { merchantId: principal.merchantId, environment: principal.environment }, id)
        : undefined;
      if (found === undefined) throw new ApiError('resource_not_found', 'No such settlement exception.');
      return reply.send(settlementExceptionView(found));
    },
  );
}
