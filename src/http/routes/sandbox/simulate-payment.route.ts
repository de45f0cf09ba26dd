import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { simulatePayment } from '../../../modules/simulation/simulate-payment.ts';
import { apiErrorOf } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { Nullable, StringEnum } from '../../schemas/schema-helpers.ts';

const SIMULATE_OUTCOMES = ['succeeded', 'failed', 'expired', 'reversed', 'settled'] as const;

const SimulateBodySchema = Type.Object(
  {
    outcome: StringEnum(SIMULATE_OUTCOMES, {
      description:
        '`succeeded`: the payer pays (also after expiry or cancel: a late payment). `failed`, `expired`: the provider ends the charge. `reversed`: the provider takes a succeeded payment back. `settled`: the provider settles a succeeded payment now and Tributary ingests its settlement report at once (the answer names the settlement).',
    }),
    amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          'With `succeeded` only (with another outcome it is `not_allowed`): what the payer pays, in major units, parsed exactly like create (`amount_too_precise`, `amount_too_large`). Less than the amount is a partial payment (bank only), more an over-payment (bank only); an amount the provider refuses is `amount_not_accepted`.',
      }),
    ),
  },
  { additionalProperties: false },
);

const SimulationSchema = Type.Object(
  {
    object: Type.Literal('sandbox_simulation'),
    payment_id: Type.String(),
    outcome: StringEnum(SIMULATE_OUTCOMES),
    amount: Nullable(Type.Number()),
    currency: Type.String(),
    connector: Type.String(),
    provider_reference: Type.String(),
    provider_status: Type.String({ description: "The provider's status of the charge after the simulation." }),
    notification: Type.String(),
    settlement_id: Type.Optional(
      Nullable(Type.String({ description: '`settled` only: the settlement that paid the payment out.' })),
    ),
  },
  { additionalProperties: false },
);

export function registerSimulatePayment(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/sandbox/payment/:id/simulate',
    {
      schema: {
        operationId: 'simulatePayment',
        tags: ['sandbox'],
        summary: 'Simulate what the payer or the provider does (sandbox only)',
        description:
          'Asks the sandbox provider to make it happen. The provider then notifies Tributary with a signed notification, exactly as a real provider does, and the payment changes when that notification is processed (within a moment in the embedded default). Never writes the payment directly. Production keys get 404. An outcome the payment’s state does not allow (failing a succeeded payment, settling an unpaid one) is 409 `payment_state_conflict`. See docs/sandbox.md for every outcome and the magic amounts.',
        params: Type.Object({ id: Type.String({ maxLength: 64, description: '`pay_…`' }) }),
        body: SimulateBodySchema,
        response: { 202: SimulationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.environment !== 'sandbox') throw new ApiError('route_not_found', 'No such route.');
      const { id } = request.params;
      if (!isIdOf('payment', id)) throw new ApiError('resource_not_found', 'No such payment.');
      const amountText =
        request.body.amount === undefined ? null : (request.numberLexemes?.get('amount') ?? String(request.body.amount));
      const result = await simulatePayment(deps.simulate, principal, id, request.body.outcome, amountText);
      if (result.kind === 'failure') throw apiErrorOf(result);
      return reply.code(202).send(result.body);
    },
  );
}
