import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { createRefund } from '../../../modules/refunds/create-refund.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { principalOf } from '../../plugins/auth.ts';
import { emptyBodyAsObject, IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { RefundBodySchema, RefundSchema } from '../../schemas/refund.schema.ts';

export function registerCreateRefund(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment/:id/refund',
    {
      schema: {
        operationId: 'refundPayment',
        tags: ['refunds'],
        summary: 'Refund all or part of a payment',
        description:
          'Refunds a `succeeded` payment, all of it (no `amount`) or part of it; several refunds per payment are allowed while their total (succeeded and pending ones) stays within what the payer paid (else 422 `refund_exceeds_captured`). Another state answers 409 `payment_state_conflict`; a channel without refunds (counter) 422 `refund_not_supported`. Answers 201 with the refund: `pending` while the provider works on it (it ends with `refund.succeeded` or `refund.failed`), or already `succeeded`/`failed`. Send an `Idempotency-Key` to make retries safe.',
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`pay_…`' }) }),
        headers: IdempotencyKeyHeadersSchema,
        body: RefundBodySchema,
        response: { 201: Type.Ref(RefundSchema), ...errorResponses },
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const { id } = request.params;
      if (!isIdOf('payment', id)) throw new ApiError('resource_not_found', 'No such payment.');
      const amountText =
        request.body.amount === undefined ? null : (request.numberLexemes?.get('amount') ?? String(request.body.amount));
      const result = await createRefund(
        deps.refund,
        principal,
        id,
        { amountText, reason: request.body.reason ?? null, source: request.body.source ?? null },
        idempotencyKey,
      );
      return sendOperationResult(reply, result);
    },
  );
}
