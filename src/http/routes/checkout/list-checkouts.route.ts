import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { checkoutView, listCheckouts, paymentIdsOfCheckouts } from '../../../modules/checkouts/index.ts';
import { cursorPage, unknownCursorError, unknownCursorIssue } from '../../cursor-page.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutListSchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS, PageLimit } from '../../schemas/payment-list.schema.ts';
import { StringEnum } from '../../schemas/schema-helpers.ts';

const ListCheckoutsQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        description:
          'A `next_cursor`: the id of the last checkout of the previous page. An id that is not one of your checkouts in this environment is a 400 `unknown_cursor`.',
      }),
    ),
    status: Type.Optional(StringEnum(['open', 'completed', 'expired'] as const)),
  },
  { additionalProperties: false },
);

export function registerListCheckouts(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/checkout',
    {
      schema: {
        operationId: 'listCheckouts',
        tags: ['checkouts'],
        summary: 'List checkouts',
        description: 'Your checkouts in the environment of the API key, newest first, one page at a time (like `GET /payment`).',
        querystring: ListCheckoutsQuerySchema,
        response: { 200: Type.Ref(CheckoutListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      if (q.starting_after !== undefined && !isIdOf('checkout', q.starting_after)) {
        throw new ApiError('invalid_request', 'The request has invalid fields.', { details: [unknownCursorIssue('checkouts')] });
      }
      const page = await listCheckouts(deps.store, principal.merchantId, principal.environment, {
        limit: q.limit ?? LIST_LIMITS.defaultLimit,
        ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
        ...(q.status === undefined ? {} : { status: q.status }),
      });
      if (!page.ok) throw unknownCursorError('checkouts');
      const payments = await paymentIdsOfCheckouts(
        deps.store,
        page.checkouts.map((c) => c.id),
      );
      return reply.send(
        cursorPage(page.checkouts, page.hasMore, (c) => checkoutView(c, payments.get(c.id) ?? [], deps.publicBaseUrl)),
      );
    },
  );
}
