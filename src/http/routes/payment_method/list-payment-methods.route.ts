import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { CurrencyCode } from '../../../lib/currencies.ts';
import { ApiError, type FieldIssue } from '../../../lib/error-catalogue.ts';
import { amountInput, currencyInput } from '../../../modules/payments/money-input.ts';
import { offeredPaymentMethods, paymentMethodView } from '../../../modules/payments/payment-methods.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { PaymentMethodListSchema } from '../../schemas/payment-method.schema.ts';
import { REQUEST_PATTERNS } from '../../schemas/schema-helpers.ts';

const QuerySchema = Type.Object(
  {
    // Text, not a number: the amount is parsed exactly from what the client wrote, like the create
    // body's amount, so `10.005` USD is refused instead of being rounded by a float conversion.
    amount: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'Only methods that accept this amount (major units, at most the currency’s minor-unit digits, e.g. `150000.00`). Requires `currency` (without it, `required`); `amount_too_precise`, `amount_too_large`, `amount_not_positive` and `amount_not_a_number` as for create.',
      }),
    ),
    currency: Type.Optional(
      Type.String({
        maxLength: 3,
        pattern: REQUEST_PATTERNS.currency,
        description: 'Only methods that accept this ISO 4217 currency (`unknown_currency` if it is none); shows its bounds only.',
      }),
    ),
  },
  { additionalProperties: false },
);

export function registerListPaymentMethods(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/payment_method',
    {
      schema: {
        operationId: 'listPaymentMethods',
        tags: ['payment methods'],
        summary: 'List the payment methods you can offer',
        description:
          'The channels, connectors, instruments (bank codes, wallets, counter partners), currencies with amount bounds and instruction expiry available to your key’s environment. With `amount` and `currency`, only the methods a payment of that amount would be routed to, in routing order; an empty list means no method accepts it.',
        querystring: QuerySchema,
        response: { 200: Type.Ref(PaymentMethodListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { amount, currency: currencyText } = request.query;
      const issues: FieldIssue[] = [];
      let currency: CurrencyCode | undefined;
      let amountMinor: bigint | undefined;
      if (currencyText !== undefined) {
        const c = currencyInput(currencyText, 'query.currency');
        if (c.ok) currency = c.value;
        else issues.push(c.issue);
      }
      if (amount !== undefined) {
        if (currencyText === undefined) {
          issues.push({ field: 'query.currency', issue: 'required', message: 'query.currency is required with amount' });
        } else if (currency !== undefined) {
          const a = amountInput(amount, currency, 'query.amount');
          if (a.ok) amountMinor = a.value;
          else issues.push(a.issue);
        }
      }
      if (issues.length > 0) throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });

      const offered = offeredPaymentMethods(deps.connectors.enabledFor(principal.environment), {
        ...(currency === undefined ? {} : { currency }),
        ...(amountMinor === undefined ? {} : { amountMinor }),
      });
      return reply.send({ object: 'list' as const, data: offered.map(paymentMethodView) });
    },
  );
}
