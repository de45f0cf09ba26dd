import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { erasePayerData } from '../../../modules/payer-data/index.ts';
import { paymentView } from '../../../modules/payments/index.ts';
import { emptyBodyAsObject } from '../../idempotency-header.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentSchema } from '../../schemas/payment.schema.ts';

export function registerErasePayerData(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment/:id/erase_payer_data',
    {
      schema: {
        operationId: 'erasePayerData',
        tags: ['payments'],
        summary: "Erase a payment's payer data",
        description:
          "For a payer's erasure request: erases the payer's personal data of a final payment — `email` becomes null, the e-mail address is replaced by `[erased]` wherever it appears in `description` and `metadata` values — in the payment, in its stored events (`GET /event` shows them erased), in stored provider notifications and in the stored answers of your webhook endpoints. When a checkout made the payment, the checkout and all its payments are erased together (one payer). Amounts, references, statuses, refunds and the ledger do not change; `payer_data_erased_at` says when it happened. Webhooks already delivered are not recalled. Only a final payment (`succeeded`, `failed`, `expired`, `canceled`, `reversed`) of a closed checkout can be erased: a pending one answers 409 `payment_state_conflict` (cancel it first). Idempotent: erasing again answers the erased payment unchanged. The body is optional and empty. See docs/payer-data.md.",
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`pay_…`' }) }),
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Type.Ref(PaymentSchema), ...errorResponses },
      },
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      // A malformed id cannot exist: answer like an unknown one without asking the database.
      if (!isIdOf('payment', id)) throw new ApiError('resource_not_found', 'No such payment.');
      const result = await erasePayerData(
        { store: deps.store, clock: deps.clock },
        { merchantId: principal.merchantId, environment: principal.environment },
        id,
        principal,
      );
      if (result.kind === 'not_found') throw new ApiError('resource_not_found', 'No such payment.');
      if (result.kind === 'conflict') {
        throw new ApiError('payment_state_conflict', result.message, { details: [{ status: result.status }] });
      }
      return reply.send(paymentView(result.payment, deps.publicBaseUrl));
    },
  );
}
