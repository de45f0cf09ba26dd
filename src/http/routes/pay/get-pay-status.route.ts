import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { PAYMENT_STATUSES } from '../../../modules/payments/payment-states.ts';
import { findPaymentForPayer } from '../../../modules/payments/payment-query-repo.ts';
import { payerStatusView } from '../../../modules/payments/payer-status.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { StringEnum, Timestamp } from '../../schemas/schema-helpers.ts';

const PayerStatusSchema = Type.Object(
  {
    id: Type.String(),
    status: StringEnum(PAYMENT_STATUSES),
    state: StringEnum(['preparing', 'payable', 'expired', 'succeeded', 'failed', 'canceled', 'reversed'] as const, {
      description: 'What the payer page shows; `expired` also for a pending payment past `expires_at`.',
    }),
    expires_at: Timestamp('Pay before this time.'),
  },
  { additionalProperties: false },
);

/** The small public document the payer page polls for live status. Same capability rule as the page. */
export function registerPayStatus(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/pay/:id/status',
    {
      config: { public: true },
      schema: {
        operationId: 'getPayStatus',
        tags: ['payer page'],
        summary: 'Live status for the payer page',
        description: 'Minimal public status of a payment (no amounts, names or instructions), polled by the payer page.',
        security: [],
        params: Type.Object({ id: Type.String({ description: '`pay_…`' }) }),
        response: { 200: PayerStatusSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const payment = await findPaymentForPayer(deps.store, request.params.id);
      reply.headers({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff' });
      if (payment === undefined) throw new ApiError('resource_not_found', 'No such payment.');
      return reply.send(payerStatusView(payment, deps.clock.now()));
    },
  );
}
