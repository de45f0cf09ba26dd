import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { selectCheckoutMethod } from '../../../modules/checkouts/index.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { CheckoutSchema, SelectCheckoutBodySchema } from '../../schemas/checkout.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

export function registerSelectCheckout(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/checkout/:id/select',
    {
      // The payer's call (or your own UI's): authorised by the checkout's client_secret, not a key.
      config: { public: true },
      schema: {
        operationId: 'selectCheckoutMethod',
        tags: ['checkouts'],
        summary: 'Choose how to pay',
        description:
          'Creates the payment for the chosen channel (through the same path as `POST /payment/create`: routing, failover, idempotent) after canceling the previous pending one, and answers the checkout with `payment` expanded (its instructions). Authorised by `client_secret` in the body, not by an API key (a wrong one is 401 `client_secret_invalid`). A completed or expired checkout is 409 `checkout_not_open`, a selection already running 409 `checkout_busy`; a channel the checkout does not offer 422 `channel_not_offered`; the payment’s own refusals are those of `POST /payment/create` (409 `reference_no_conflict` when a live payment took the checkout’s `reference_no`; 422 `currency_not_supported`, `amount_out_of_range`, `channel_unavailable`; 503 `provider_unavailable`).',
        security: [],
        params: Type.Object({ id: Type.String({ description: '`cs_…`' }) }),
        body: SelectCheckoutBodySchema,
        response: { 200: Type.Ref(CheckoutSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!isIdOf('checkout', request.params.id)) throw new ApiError('resource_not_found', 'No such checkout.');
      const result = await selectCheckoutMethod(deps.selectCheckout, request.params.id, {
        authority: { kind: 'client_secret', secret: request.body.client_secret },
        channel: request.body.channel,
        instrument: request.body.instrument ?? null,
      });
      return sendOperationResult(reply, result);
    },
  );
}
