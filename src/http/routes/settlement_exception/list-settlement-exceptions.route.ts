import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isIdOf } from '../../../lib/ids.ts';
import { listSettlementExceptions } from '../../../modules/settlement/settlement-exception-repo.ts';
import { settlementExceptionView } from '../../../modules/settlement/settlement-exception-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import { cursorPage, unknownCursorError } from '../../cursor-page.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS } from '../../schemas/payment-list.schema.ts';
import { ListSettlementExceptionsQuerySchema, SettlementExceptionListSchema } from '../../schemas/settlement-exception.schema.ts';

export function registerListSettlementExceptions(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/settlement_exception',
    {
      schema: {
        operationId: 'listSettlementExceptions',
        tags: ['settlement'],
        summary: 'List settlement exceptions',
        description:
          'Settlement report lines for your payments that Tributary did not apply (docs/money.md "Settlement exceptions"), in the environment of the API key, newest first, one page at a time (the cursor rules of GET /payment, decision 0010).',
        querystring: ListSettlementExceptionsQuerySchema,
        response: { 200: Type.Ref(SettlementExceptionListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      // A malformed id cannot be one of the merchant's exceptions: the same answer as an unknown one.
      if (q.starting_after !== undefined && !isIdOf('settlementException', q.starting_after)) {
        throw unknownCursorError('settlement exceptions');
      }
      const page = await listSettlementExceptions(
        deps.store,
        { merchantId: principal.merchantId, environment: principal.environment },
        {
          ...(q.status === undefined ? {} : { status: q.status }),
          ...(q.kind === undefined ? {} : { kind: q.kind }),
          ...(q.connector === undefined ? {} : { connector: q.connector }),
        },
        {
          limit: q.limit ?? LIST_LIMITS.defaultLimit,
          ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
        },
      );
      if (!page.ok) throw unknownCursorError('settlement exceptions');
      return reply.send(cursorPage(page.exceptions, page.hasMore, settlementExceptionView));
    },
  );
}
