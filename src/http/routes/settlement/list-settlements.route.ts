import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isIdOf } from '../../../lib/ids.ts';
import { listSettlements } from '../../../modules/settlement/settlement-repo.ts';
import { settlementView } from '../../../modules/settlement/settlement-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import { cursorPage, unknownCursorError } from '../../cursor-page.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS } from '../../schemas/payment-list.schema.ts';
import { ListSettlementsQuerySchema, SettlementListSchema } from '../../schemas/settlement.schema.ts';
import { Type } from '@sinclair/typebox';

export function registerListSettlements(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/settlement',
    {
      schema: {
        operationId: 'listSettlements',
        tags: ['settlement'],
        summary: 'List settlements',
        description:
          'Your settlement batches in the environment of the API key, newest first, one page at a time (the same cursor rules as GET /payment, decision 0010).',
        querystring: ListSettlementsQuerySchema,
        response: { 200: Type.Ref(SettlementListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      // A malformed id cannot be one of the merchant's settlements: the same answer as an unknown one.
      if (q.starting_after !== undefined && !isIdOf('settlement', q.starting_after)) throw unknownCursorError('settlements');
      const page = await listSettlements(deps.store, principal.merchantId, principal.environment, {
        limit: q.limit ?? LIST_LIMITS.defaultLimit,
        ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
        ...(q.connector === undefined ? {} : { connector: q.connector }),
      });
      if (!page.ok) throw unknownCursorError('settlements');
      return reply.send(cursorPage(page.settlements, page.hasMore, (s) => settlementView(s)));
    },
  );
}
