import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { expireCheckoutForMerchant } from '../../../modules/checkouts/index.ts';
import { emptyBodyAsObject } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutSchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

export function registerExpireCheckout(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/checkout/:id/expire',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'expireCheckout',
        tags: ['checkouts'],
        summary: 'Expire a checkout',
        description:
          'Ends an open checkout now (`checkout.expired`); its pending payment is canceled at the provider. Expiring an expired checkout answers it unchanged; a completed one is 409 `checkout_not_open`.',
        params: Type.Object({ id: Type.String({ description: '`cs_…`' }) }),
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref(CheckoutSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (!isIdOf('checkout', request.params.id)) throw new ApiError('resource_not_found', 'No such checkout.');
      return sendOperationResult(reply, await expireCheckoutForMerchant(deps.expireCheckout, principal, request.params.id));
    },
  );
}
