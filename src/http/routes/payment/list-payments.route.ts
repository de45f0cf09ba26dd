import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, type FieldIssue } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { listPayments, type PaymentListFilter } from '../../../modules/payments/payment-query-repo.ts';
import { paymentView } from '../../../modules/payments/payment-view.ts';
import { instantOf } from '../../instant.ts';
import { principalOf } from '../../plugins/auth.ts';
import { cursorPage, unknownCursorError, unknownCursorIssue } from '../../cursor-page.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS, ListPaymentsQuerySchema, PaymentListSchema } from '../../schemas/payment-list.schema.ts';

export function registerListPayments(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/payment',
    {
      schema: {
        operationId: 'listPayments',
        tags: ['payments'],
        summary: 'List payments',
        description:
          'Your payments in the environment of the API key, newest first, one page at a time. Pass the `next_cursor` of a page as `starting_after` to get the next one; pages stay consistent while new payments arrive. Unknown query parameters are refused.',
        querystring: ListPaymentsQuerySchema,
        response: { 200: Type.Ref(PaymentListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      const issues: FieldIssue[] = [];
      const filter: PaymentListFilter = {};
      if (q.status !== undefined) filter.status = q.status;
      if (q.reference_no !== undefined) filter.referenceNo = q.reference_no;
      if (q.channel !== undefined) filter.channel = q.channel;
      const createdGte = q.created_gte === undefined ? undefined : instantOf(q.created_gte, 'query.created_gte', issues);
      const createdLte = q.created_lte === undefined ? undefined : instantOf(q.created_lte, 'query.created_lte', issues);
      if (createdGte !== undefined) filter.createdGte = createdGte;
      if (createdLte !== undefined) filter.createdLte = createdLte;
      // A malformed id cannot be one of the merchant's payments: the same answer as an unknown one.
      if (q.starting_after !== undefined && !isIdOf('payment', q.starting_after)) issues.push(unknownCursorIssue('payments'));
      if (issues.length > 0) throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });

      const limit = q.limit ?? LIST_LIMITS.defaultLimit;
      const page = await listPayments(deps.store, principal.merchantId, principal.environment, filter, {
        limit,
        ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
      });
      if (!page.ok) throw unknownCursorError('payments');
      return reply.send(cursorPage(page.payments, page.hasMore, (p) => paymentView(p, deps.publicBaseUrl)));
    },
  );
}
