import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import {
  EMPTY_SUMMARY,
  findPaymentLink,
  paymentLinkView,
  summariesOfPaymentLinks,
} from '../../../modules/payment-links/index.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentLinkSchema } from '../../schemas/payment-link.schema.ts';

export function registerGetPaymentLink(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/payment_link/:id',
    {
      schema: {
        operationId: 'getPaymentLink',
        tags: ['payment links'],
        summary: 'Retrieve a payment link',
        description: 'The link with its checkouts by status and what its completed checkouts collected.',
        params: Type.Object({ id: Type.String({ description: '`plink_…`' }) }),
        response: { 200: Type.Ref(PaymentLinkSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const id = request.params.id;
      const link = isIdOf('paymentLink', id)
        ? await findPaymentLink(deps.store, principal.merchantId, principal.environment, id)
        : undefined;
      if (link === undefined) throw new ApiError('resource_not_found', 'No such payment link.');
      const now = deps.clock.now();
      const summaries = await summariesOfPaymentLinks(deps.store, principal.merchantId, principal.environment, [id], now);
      return reply.send(paymentLinkView(link, summaries.get(id) ?? EMPTY_SUMMARY, deps.publicBaseUrl, now));
    },
  );
}
