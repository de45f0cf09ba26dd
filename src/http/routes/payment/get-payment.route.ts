import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { findPayment } from '../../../modules/payments/payment-repo.ts';
import { paymentView } from '../../../modules/payments/payment-view.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentSchema } from '../../schemas/payment.schema.ts';

export function registerGetPayment(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/payment/:id',
    {
      schema: {
        operationId: 'getPayment',
        tags: ['payments'],
        summary: 'Retrieve a payment',
        description:
          "Returns the payment with its current status and instructions. Another merchant's or the other environment's id answers 404, exactly like an unknown id.",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`pay_…`' }) }),
        response: { 200: Type.Ref(PaymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      // A malformed id cannot exist: answer like an unknown one without asking the database.
      const payment = isIdOf('payment', id)
        ? await findPayment(deps.store, principal.merchantId, principal.environment, id)
        : undefined;
      if (payment === undefined) throw new ApiError('resource_not_found', 'No such payment.');
      return reply.send(paymentView(payment, deps.publicBaseUrl));
    },
  );
}
