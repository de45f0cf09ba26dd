import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { CHECKOUT_EXPIRES_IN, createCheckout } from '../../../modules/checkouts/index.ts';
import { normalizeCreatePayment } from '../../../modules/payments/create-payment-request.ts';
import { principalOf } from '../../plugins/auth.ts';
import { IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutSchema, CreateCheckoutBodySchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

export function registerCreateCheckout(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/checkout/create',
    {
      schema: {
        operationId: 'createCheckout',
        tags: ['checkouts'],
        summary: 'Create a checkout',
        description:
          'Creates a checkout: the payer chooses how to pay on its hosted page (`url`), or your own UI calls `POST /checkout/{id}/select` with the `client_secret` (shown only in this answer). Send an `Idempotency-Key` header so that retries never create a second checkout. Refused like `POST /payment/create` when no channel can take the amount: 422 `currency_not_supported`, `amount_out_of_range` or `channel_unavailable`; a `reference_no` of a live payment or open checkout is 409 `reference_no_conflict`.',
        headers: IdempotencyKeyHeadersSchema,
        body: CreateCheckoutBodySchema,
        response: { 201: Type.Ref(CheckoutSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      // The money, reference, description, metadata, e-mail and callback rules are create's.
      const normalized = normalizeCreatePayment(body, request.numberLexemes?.get('amount'), {
        environment: principal.environment,
        allowlist: deps.allowlist,
      });
      const issues = normalized.ok ? [] : [...normalized.issues];
      // The payer's browser goes there, not our server: an absolute http(s) URL (https in production).
      const page = (field: 'success_url' | 'cancel_url') => {
        const value = body[field];
        if (value == null) return null;
        const url = URL.canParse(value) ? new URL(value) : undefined;
        const schemes = principal.environment === 'production' ? ['https:'] : ['https:', 'http:'];
        if (url !== undefined && schemes.includes(url.protocol)) return url.toString();
        issues.push({
          field,
          issue: 'invalid_url',
          message: `must be an absolute ${schemes.join(' or ').replace(/:/g, '')} URL`,
        });
        return null;
      };
      const successUrl = page('success_url');
      const cancelUrl = page('cancel_url');
      if (!normalized.ok || issues.length > 0) {
        throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });
      }
      const input = normalized.input;
      const result = await createCheckout(
        deps.checkout,
        principal,
        {
          amountMinor: input.amountMinor,
          currency: input.currency,
          referenceNo: input.referenceNo,
          description: input.description,
          email: input.email,
          metadata: input.metadata,
          callbackUrl: input.callbackUrl,
          channels: body.channels ?? null,
          successUrl,
          cancelUrl,
          expiresInSeconds: body.expires_in ?? CHECKOUT_EXPIRES_IN.defaultSeconds,
        },
        idempotencyKeyOf(request),
      );
      return sendOperationResult(reply, result);
    },
  );
}
