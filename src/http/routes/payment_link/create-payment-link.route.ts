import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Environment } from '../../../kernel/index.ts';
import { ApiError, type FieldIssue } from '../../../lib/error-catalogue.ts';
import { createPaymentLink, type LinkAmount, LINK_CHECKOUT_EXPIRES_IN } from '../../../modules/payment-links/index.ts';
import { amountInput, currencyInput } from '../../../modules/payments/money-input.ts';
import { IdempotencyKeyHeadersSchema, idempotencyKeyOf } from '../../idempotency-header.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CreatePaymentLinkBodySchema, PaymentLinkSchema } from '../../schemas/payment-link.schema.ts';

type AmountField = 'amount' | 'amount_min' | 'amount_max';

/** The payer's browser goes there, not our server: an absolute http(s) URL (https in production). */
export function payerRedirectUrl(
  value: string | null | undefined,
  field: string,
  environment: Environment,
  issues: FieldIssue[],
) {
  if (value == null) return null;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  const schemes = environment === 'production' ? ['https:'] : ['https:', 'http:'];
  if (url !== undefined && schemes.includes(url.protocol)) return url.toString();
  issues.push({ field, issue: 'invalid_url', message: `must be an absolute ${schemes.join(' or ').replace(/:/g, '')} URL` });
  return null;
}

export function registerCreatePaymentLink(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/payment_link/create',
    {
      schema: {
        operationId: 'createPaymentLink',
        tags: ['payment links'],
        summary: 'Create a payment link',
        description:
          'Creates a reusable payment link (`url`): a fixed `amount`, or `amount_min` and `amount_max` between which the payer enters the amount; optionally at most `max_uses` payments and an `expires_at`. Each visit (the payer pressing Pay, `POST /payment_link/{id}/checkout`) creates a checkout. Send an `Idempotency-Key` header so that retries never create a second link.',
        headers: IdempotencyKeyHeadersSchema,
        body: CreatePaymentLinkBodySchema,
        response: { 201: Type.Ref(PaymentLinkSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const body = request.body;
      const issues: FieldIssue[] = [];
      const currency = currencyInput(body.currency, 'currency');
      if (!currency.ok) issues.push(currency.issue);
      // Exact money from each number's source text, against the currency's minor unit.
      const money = (field: AmountField): bigint | undefined => {
        const value = body[field];
        if (value === undefined || !currency.ok) return undefined;
        const parsed = amountInput(request.numberLexemes?.get(field) ?? String(value), currency.value, field);
        if (parsed.ok) return parsed.value;
        issues.push(parsed.issue);
        return undefined;
      };
      const fixed = money('amount');
      const min = money('amount_min');
      const max = money('amount_max');
      let amount: LinkAmount | undefined;
      const bounded = body.amount_min !== undefined || body.amount_max !== undefined;
      if (body.amount !== undefined && bounded) {
        issues.push({
          field: 'amount',
          issue: 'exclusive_fields',
          message: 'send either amount (fixed) or amount_min and amount_max (the payer enters it), not both',
        });
      } else if (body.amount === undefined && !bounded) {
        issues.push({ field: 'amount', issue: 'required', message: 'send amount, or amount_min and amount_max' });
      } else if (body.amount !== undefined) {
        if (fixed !== undefined) amount = { kind: 'fixed', amountMinor: fixed };
      } else {
        for (const field of ['amount_min', 'amount_max'] as const) {
          if (body[field] === undefined)
            issues.push({ field, issue: 'required', message: `${field} is required with the other bound` });
        }
        if (min !== undefined && max !== undefined) {
          if (min > max)
            issues.push({ field: 'amount_min', issue: 'bounds_inverted', message: 'must not be greater than amount_max' });
          else amount = { kind: 'payer_entered', minMinor: min, maxMinor: max };
        }
      }
      // PostgreSQL text cannot hold U+0000: a field problem, not a 500.
      if (body.description?.includes('\u0000') === true) {
        issues.push({ field: 'description', issue: 'invalid_character', message: 'description must not contain U+0000' });
      }
      const successUrl = payerRedirectUrl(body.success_url, 'success_url', principal.environment, issues);
      const cancelUrl = payerRedirectUrl(body.cancel_url, 'cancel_url', principal.environment, issues);
      const expiresAt = body.expires_at == null ? null : new Date(body.expires_at);
      if (expiresAt !== null && !(expiresAt > deps.clock.now())) {
        issues.push({ field: 'expires_at', issue: 'not_in_future', message: 'must be in the future' });
      }
      if (issues.length > 0 || amount === undefined || !currency.ok) {
        throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });
      }
      const result = await createPaymentLink(
        deps.paymentLinks,
        principal,
        {
          amount,
          currency: currency.value,
          description: body.description ?? null,
          channels: body.channels ?? null,
          successUrl,
          cancelUrl,
          maxUses: body.max_uses ?? null,
          expiresAt,
          checkoutExpiresInSeconds: body.checkout_expires_in ?? LINK_CHECKOUT_EXPIRES_IN.defaultSeconds,
        },
        idempotencyKeyOf(request),
      );
      return sendOperationResult(reply, result);
    },
  );
}
