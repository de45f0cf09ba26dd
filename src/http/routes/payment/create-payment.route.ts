import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { createPayment } from '../../../modules/payments/create-payment.ts';
import { normalizeCreatePayment } from '../../../modules/payments/create-payment-request.ts';
import { principalOf } from '../../plugins/auth.ts';
import { IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CreatePaymentBodySchema, PaymentSchema } from '../../schemas/payment.schema.ts';

export function registerCreatePayment(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment/create',
    {
      schema: {
        operationId: 'createPayment',
        tags: ['payments'],
        summary: 'Create a payment',
        description:
          'Creates a payment and returns it with the instructions the payer needs. Send an `Idempotency-Key` header so that retries never create a second payment. A `reference_no` already used by a live payment is 409 `reference_no_conflict`. When no connector can take it: 422 `currency_not_supported`, `amount_out_of_range` or `channel_unavailable`; when no provider answers, 503 `provider_unavailable` (retry with the same key).',
        headers: IdempotencyKeyHeadersSchema,
        body: CreatePaymentBodySchema,
        response: { 201: Type.Ref(PaymentSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const normalized = normalizeCreatePayment(request.body, request.numberLexemes?.get('amount'), {
        environment: principal.environment,
        allowlist: deps.allowlist,
      });
      if (!normalized.ok)
        throw new ApiError('invalid_request', 'The request has invalid fields.', { details: normalized.issues });
      const result = await createPayment(deps.createPayment, principal, normalized.input, idempotencyKey);
      return sendOperationResult(reply, result);
    },
  );
}
