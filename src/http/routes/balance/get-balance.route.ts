import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { balanceView } from '../../../modules/ledger/balance.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { BalanceSchema } from '../../schemas/refund.schema.ts';

export function registerGetBalance(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/balance',
    {
      schema: {
        operationId: 'getBalance',
        tags: ['balance'],
        summary: 'Your balances in this environment, from the ledger',
        description:
          'Per currency: `pending` (paid, not settled), `available` (settled, payable to you) and `refunds_in_flight` (held for refunds the provider has not finished), and `owed_to_payers` (late payments you did not get, held until they are refunded to their payers), in major units. With `verify=true` the ledger is also re-derived from every posting and checked (each entry balances, everything sums to zero, cached balances equal their postings); `verification.status` is `mismatch` with the violations if not. An operator check: slower, never needed for normal use.',
        querystring: Type.Object(
          { verify: Type.Optional(Type.Boolean({ description: 'Re-derive and check the ledger as well.' })) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(BalanceSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const view = await balanceView(deps.store, principal, request.query.verify === true, deps.clock.now());
      return reply.send(view);
    },
  );
}
