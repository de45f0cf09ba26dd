import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../../db/store.ts';
import { FIRST_PAGE_LINES, reconciliationCsv, reconciliationView } from '../../../modules/reconciliation/reconciliation-view.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { ReconciliationSchema } from '../../schemas/reconciliation.schema.ts';
import { linesOf, loadReconciliation, ReconciliationParams } from './load-reconciliation.ts';

export function registerGetReconciliation(app: FastifyInstance, deps: { store: Store }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/reconciliation/:id',
    {
      schema: {
        operationId: 'getReconciliation',
        tags: ['settlement'],
        summary: 'Retrieve a reconciliation',
        description:
          "The summary counts and every line (matched or the discrepancy kind, with the provider's and Tributary's side). `GET /reconciliation/{id}/lines.csv` exports the lines as CSV.",
        params: ReconciliationParams,
        response: { 200: Type.Ref(ReconciliationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const found = await loadReconciliation(deps.store, request, request.params.id);
      const firstPage = await linesOf(deps.store, request, found, { afterSeq: 0, limit: FIRST_PAGE_LINES });
      return reply.send(reconciliationView(found, firstPage));
    },
  );

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/reconciliation/:id/lines.csv',
    {
      schema: {
        operationId: 'exportReconciliationLines',
        tags: ['settlement'],
        summary: "Export a reconciliation's lines as CSV",
        description:
          "RFC 4180 CSV (UTF-8, CRLF, a header row): one row per line with `result`, the payment, the provider reference, and both sides. Amounts are exact decimal strings in major units. Text that a spreadsheet would run as a formula is prefixed with `'`.",
        params: ReconciliationParams,
        response: {
          200: { description: 'The lines as CSV.', content: { 'text/csv': { schema: Type.String() } } },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const found = await loadReconciliation(deps.store, request, request.params.id);
      const all = await linesOf(deps.store, request, found, { afterSeq: 0 });
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${found.id}.csv"`)
        .send(reconciliationCsv(all.lines));
    },
  );
}
