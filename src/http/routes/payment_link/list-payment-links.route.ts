import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import {
  EMPTY_SUMMARY,
  listPaymentLinks,
  paymentLinkView,
  summariesOfPaymentLinks,
} from '../../../modules/payment-links/index.ts';
import { cursorPage, unknownCursorError, unknownCursorIssue } from '../../cursor-page.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentLinkListSchema } from '../../schemas/payment-link.schema.ts';
import { LIST_LIMITS, PageLimit } from '../../schemas/payment-list.schema.ts';

const ListPaymentLinksQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        description:
          'A `next_cursor`: the id of the last payment link of the previous page. An id that is not one of your payment links in this environment is a 400 `unknown_cursor`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function registerListPaymentLinks(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/payment_link',
    {
      schema: {
        operationId: 'listPaymentLinks',
        tags: ['payment links'],
        summary: 'List payment links',
        description:
          'Your payment links in the environment of the API key, newest first, one page at a time (like `GET /payment`).',
        querystring: ListPaymentLinksQuerySchema,
        response: { 200: Type.Ref(PaymentLinkListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      if (q.starting_after !== undefined && !isIdOf('paymentLink', q.starting_after)) {
        throw new ApiError('invalid_request', 'The request has invalid fields.', {
          details: [unknownCursorIssue('payment links')],
        });
      }
      const page = await listPaymentLinks(deps.store, principal.merchantId, principal.environment, {
        limit: q.limit ?? LIST_LIMITS.defaultLimit,
        ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
      });
      if (!page.ok) throw unknownCursorError('payment links');
      const now = deps.clock.now();
      const summaries = await summariesOfPaymentLinks(
        deps.store,
        principal.merchantId,
        principal.environment,
        page.links.map((l) => l.id),
        now,
      );
      return reply.send(
        cursorPage(page.links, page.hasMore, (l) =>
          paymentLinkView(l, summaries.get(l.id) ?? EMPTY_SUMMARY, deps.publicBaseUrl, now),
        ),
      );
    },
  );
}
