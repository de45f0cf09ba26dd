import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { startCheckoutFromLink } from '../../../modules/payment-links/index.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { htmlResponse } from '../../schemas/html-response.ts';
import { payerFormScope, seeOther } from './payer-form-scope.ts';
import { localeOf } from './serve-checkout-page.ts';
import { payerAmountText, serveLinkPage } from './serve-link-page.ts';

const FormSchema = Type.Object(
  {
    visit: Type.String({ pattern: '^[A-Za-z0-9_-]{16,64}$', description: 'The visit the page named (one form, one checkout).' }),
    amount: Type.Optional(Type.String({ maxLength: 32, description: 'The payer-entered amount, in the page language.' })),
    lang: Type.Optional(Type.String({ maxLength: 8 })),
  },
  { additionalProperties: false },
);

/**
 * A visit from the payment-link page: an HTML form post that starts a checkout (as
 * `POST /payment_link/{id}/checkout`) and answers 303 to that checkout's page. The same form posted
 * again (a double click, a reload) goes to the same checkout and takes no second use.
 */
export function registerStartOnPage(app: FastifyInstance, deps: RouteDeps): void {
  payerFormScope(app, (scope) => {
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/pay/:id/start',
      {
        config: { public: true },
        schema: {
          operationId: 'startOnPaymentLinkPage',
          tags: ['payer page'],
          summary: "The payer's visit on a payment-link page (HTML form)",
          description:
            'The form the payment-link page (`/pay/plink_…`) posts (`application/x-www-form-urlencoded`): starts a checkout like `POST /payment_link/{id}/checkout` and answers `303 See Other` to its hosted page. The form names its visit, so posting it twice makes one checkout. A refusal (amount outside the bounds, a used-up, inactive or expired link) answers the link page again with the reason.',
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          params: Type.Object({ id: Type.String({ description: '`plink_…`' }) }),
          body: FormSchema,
          response: {
            ...errorResponses,
            303: Type.Null({ description: "To the checkout's page (`Location`)." }),
            404: htmlResponse('Unknown payment link (text/html).'),
            409: htmlResponse('The link is used up, inactive or expired: its page, saying so (text/html).'),
            422: htmlResponse('The amount cannot be taken: the page again, with the reason (text/html).'),
            503: htmlResponse('No provider can take it now: the page again, with the reason (text/html).'),
          },
        },
      },
      async (request, reply) => {
        const linkId = request.params.id;
        const locale = localeOf(request, request.body.lang);
        const typed = request.body.amount;
        const result = await startCheckoutFromLink(deps.paymentLinks, linkId, {
          amount: typed === undefined || typed.trim() === '' ? undefined : payerAmountText(typed, locale),
          visitToken: request.body.visit,
        });
        if (result.kind === 'response' || result.kind === 'revisit') {
          const to = seeOther(`/pay/${result.checkoutId}?lang=${locale}`);
          // No body at all (not even `null`): the document declares none for a redirect.
          return reply
            .code(to.code)
            .headers(to.headers)
            .send(undefined as unknown as null);
        }
        if (result.code === 'resource_not_found') return serveLinkPage(deps, reply, { linkId, locale });
        const status = httpStatusOf(result.code);
        const issue = result.details.map((d) => d['issue']).find((i) => typeof i === 'string');
        return serveLinkPage(deps, reply, {
          linkId,
          locale,
          status: status >= 500 ? 503 : status === 409 ? 409 : 422,
          notice: { code: result.code, issue },
          ...(typed === undefined ? {} : { amountText: typed }),
          visitToken: request.body.visit,
        });
      },
    );
  });
}
