import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../../db/store.ts';
import { reconciliationLinesView } from '../../../modules/reconciliation/reconciliation-view.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS } from '../../schemas/payment-list.schema.ts';
import { ListReconciliationLinesQuerySchema, ReconciliationLineListSchema } from '../../schemas/reconciliation.schema.ts';
import { linesOf, loadReconciliation, ReconciliationParams } from './load-reconciliation.ts';

export function registerListReconciliationLines(app: FastifyInstance, deps: { store: Store }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/reconciliation/:id/lines',
    {
      schema: {
        operationId: 'listReconciliationLines',
        tags: ['settlement'],
        summary: "List a reconciliation's lines",
        description:
          'Pages through every line in order, optionally only one `result` (e.g. `amount_mismatch`). Pass `next_cursor` as `starting_after` for the next page.',
        params: ReconciliationParams,
        querystring: ListReconciliationLinesQuerySchema,
        response: { 200: Type.Ref(ReconciliationLineListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const found = await loadReconciliation(deps.store, request, request.params.id);
      const { limit = LIST_LIMITS.defaultLimit, starting_after: after, result } = request.query;
      const page = await linesOf(deps.store, request, found, {
        afterSeq: after === undefined ? 0 : Number(after),
        limit,
        ...(result === undefined ? {} : { result }),
      });
      return reply.send(reconciliationLinesView(page));
    },
  );
}
