import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { createPaymentLink } from '../../../modules/payment-links/index.ts';
import { IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CreatePaymentLinkBodySchema, PaymentLinkSchema } from '../../schemas/payment-link.schema.ts';
import { paymentLinkInput } from './payment-link-input.ts';

export function registerCreatePaymentLink(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment_link/create',
    {
      schema: {
        operationId: 'createPaymentLink',
        tags: ['payment links'],
        summary: 'Create a payment link',
        description:
          'Creates a reusable payment link (`url`): a fixed `amount`, or `amount_min` and `amount_max` between which the payer enters the amount; optionally at most `max_uses` payments and an `expires_at`. Each visit (the payer pressing Pay, `POST /payment_link/{id}/checkout`) creates a checkout. Send an `Idempotency-Key` header so that retries never create a second link. Rules the schema cannot state, with their issues: exactly one of `amount` or both `amount_min` and `amount_max` (`exclusive_fields`; a missing one is `required`), `amount_min` ≤ `amount_max` (`bounds_inverted`), amounts with at most the currency’s minor-unit digits (`amount_too_precise`) in an active currency (`unknown_currency`), `expires_at` in the future (`not_in_future`), payer URLs http(s) (`invalid_url`); the amount (or both bounds) must be one the link’s channels can serve, in a currency one of them takes: otherwise 422 `currency_not_supported`, `channel_unavailable` or `amount_out_of_range`.',
        headers: IdempotencyKeyHeadersSchema,
        body: CreatePaymentLinkBodySchema,
        response: { 201: Type.Ref(PaymentLinkSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      // Each amount from its number's source text: exact, never through a float.
      const text = (field: 'amount' | 'amount_min' | 'amount_max') => {
        const value = body[field];
        return value === undefined ? undefined : (request.numberLexemes?.get(field) ?? String(value));
      };
      const parsed = paymentLinkInput(
        {
          amount: text('amount'),
          amountMin: text('amount_min'),
          amountMax: text('amount_max'),
          currency: body.currency,
          description: body.description,
          channels: body.channels,
          successUrl: body.success_url,
          cancelUrl: body.cancel_url,
          maxUses: body.max_uses,
          expiresAt: body.expires_at,
          checkoutExpiresInSeconds: body.checkout_expires_in,
        },
        principal.environment,
        deps.clock.now(),
      );
      if (!parsed.ok) throw new ApiError('invalid_request', 'The request has invalid fields.', { details: parsed.issues });
      const result = await createPaymentLink(deps.paymentLinks, principal, parsed.input, idempotencyKeyOf(request));
      return sendOperationResult(reply, result);
    },
  );
}
