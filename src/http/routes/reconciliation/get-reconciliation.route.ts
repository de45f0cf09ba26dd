import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../../db/store.ts';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { findReconciliation } from '../../../modules/reconciliation/reconciliation-repo.ts';
import { reconciliationCsv, reconciliationView } from '../../../modules/reconciliation/reconciliation-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { ReconciliationSchema } from '../../schemas/reconciliation.schema.ts';

const Params = Type.Object({ id: Type.String({ maxLength: 64, description: '`rec_…`' }) });

async function load(store: Store, request: FastifyRequest, id: string) {
  const principal = principalOf(request);
  const found = isIdOf('reconciliation', id)
    ? await findReconciliation(store, principal.merchantId, principal.environment, id)
    : undefined;
  if (found === undefined) throw new ApiError('resource_not_found', 'No such reconciliation.');
  return found;
}

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
        params: Params,
        response: { 200: Type.Ref(ReconciliationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const found = await load(deps.store, request, request.params.id);
      return reply.send(reconciliationView(found.reconciliation, found.lines));
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
        params: Params,
        response: {
          200: { description: 'The lines as CSV.', content: { 'text/csv': { schema: Type.String() } } },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const found = await load(deps.store, request, request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${found.reconciliation.id}.csv"`)
        .send(reconciliationCsv(found.lines));
    },
  );
}
