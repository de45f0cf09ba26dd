import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { cancelPayment } from '../../../modules/payments/cancel-payment.ts';
import { CANCELLATION_REASONS } from '../../../modules/payments/payment-types.ts';
import { principalOf } from '../../plugins/auth.ts';
import { emptyBodyAsObject, IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentSchema } from '../../schemas/payment.schema.ts';
import { Nullable, StringEnum } from '../../schemas/schema-helpers.ts';

const CancelBodySchema = Type.Object(
  {
    cancellation_reason: Type.Optional(
      Nullable(
        StringEnum(CANCELLATION_REASONS, { description: 'Why the payment is canceled (stored and shown on the payment).' }),
      ),
    ),
  },
  { additionalProperties: false },
);

export function registerCancelPayment(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment/:id/cancel',
    {
      schema: {
        operationId: 'cancelPayment',
        tags: ['payments'],
        summary: 'Cancel a pending payment',
        description:
          'Closes the payment at the provider (closes the virtual account, voids the payment code or the e-wallet charge), then marks it `canceled` and emits `payment.canceled`. Only a `pending` payment can be canceled; any other state answers 409 `payment_state_conflict` (also when the payer paid just before). If the provider does not confirm, the payment stays pending and the answer is 503 with `Retry-After`. The body is optional. Send an `Idempotency-Key` to make retries safe.',
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`pay_…`' }) }),
        headers: IdempotencyKeyHeadersSchema,
        body: CancelBodySchema,
        response: { 200: Type.Ref(PaymentSchema), ...errorResponses },
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const { id } = request.params;
      if (!isIdOf('payment', id)) throw new ApiError('resource_not_found', 'No such payment.');
      const result = await cancelPayment(
        deps.cancelPayment,
        principal,
        id,
        { cancellationReason: request.body.cancellation_reason ?? null },
        idempotencyKey,
      );
      return sendOperationResult(reply, result);
    },
  );
}
