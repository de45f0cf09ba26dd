import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { deactivatePaymentLinkForMerchant } from '../../../modules/payment-links/index.ts';
import { emptyBodyAsObject } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentLinkSchema } from '../../schemas/payment-link.schema.ts';

export function registerDeactivatePaymentLink(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment_link/:id/deactivate',
    {
      preValidation: emptyBodyAsObject,
      schema: {
        operationId: 'deactivatePaymentLink',
        tags: ['payment links'],
        summary: 'Deactivate a payment link',
        description:
          'The link takes no more visits (409 `payment_link_inactive`); this is final. Checkouts it already made stay payable until they complete or expire. Deactivating an inactive link answers it unchanged.',
        params: Type.Object({ id: Type.String({ description: '`plink_…`' }) }),
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref(PaymentLinkSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (!isIdOf('paymentLink', request.params.id)) throw new ApiError('resource_not_found', 'No such payment link.');
      return sendOperationResult(reply, await deactivatePaymentLinkForMerchant(deps.paymentLinks, principal, request.params.id));
    },
  );
}
