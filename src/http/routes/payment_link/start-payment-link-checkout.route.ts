import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { assert } from '../../../lib/assert.ts';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { startCheckoutFromLink } from '../../../modules/payment-links/index.ts';
import { emptyBodyAsObject } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutSchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { StartLinkCheckoutBodySchema } from '../../schemas/payment-link.schema.ts';

export function registerStartPaymentLinkCheckout(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment_link/:id/checkout',
    {
      // A visit: the payer pressed Pay on the link (the link id is the capability, like /pay/{id}).
      config: { public: true },
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'startPaymentLinkCheckout',
        tags: ['payment links'],
        summary: 'Start a checkout from a payment link',
        description:
          "A visit: creates a checkout for the link's amount (or the payer's `amount`, within the link's bounds) and answers it with its `client_secret` and `url`. Not authorised by an API key: the link id is public. Each call is a new visit and holds one of the link's uses while its checkout is open; refused with 409 `payment_link_inactive`, `payment_link_expired` or `payment_link_used_up`.",
        security: [],
        params: Type.Object({ id: Type.String({ description: '`plink_…`' }) }),
        body: StartLinkCheckoutBodySchema,
        response: { 201: Type.Ref(CheckoutSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!isIdOf('paymentLink', request.params.id)) throw new ApiError('resource_not_found', 'No such payment link.');
      const amount = request.body.amount;
      const result = await startCheckoutFromLink(deps.paymentLinks, request.params.id, {
        amount: amount === undefined ? undefined : (request.numberLexemes?.get('amount') ?? String(amount)),
      });
      // This API takes no visit token, so every call is a new visit.
      assert(result.kind !== 'revisit', 'a visit without a token is never a revisit');
      return sendOperationResult(reply, result);
    },
  );
}
