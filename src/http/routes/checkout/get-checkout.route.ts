import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { checkoutPaymentIds, checkoutView, findCheckout } from '../../../modules/checkouts/index.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutSchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

export function registerGetCheckout(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/checkout/:id',
    {
      schema: {
        operationId: 'getCheckout',
        tags: ['checkouts'],
        summary: 'Retrieve a checkout',
        params: Type.Object({ id: Type.String({ description: '`cs_…`' }) }),
        response: { 200: Type.Ref(CheckoutSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const id = request.params.id;
      const checkout = isIdOf('checkout', id)
        ? await findCheckout(deps.store, principal.merchantId, principal.environment, id)
        : undefined;
      if (checkout === undefined) throw new ApiError('resource_not_found', 'No such checkout.');
      return reply.send(checkoutView(checkout, await checkoutPaymentIds(deps.store, id), deps.publicBaseUrl));
    },
  );
}
