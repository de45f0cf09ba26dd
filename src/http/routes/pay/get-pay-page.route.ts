import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { findPaymentForPayer } from '../../../modules/payments/payment-query-repo.ts';
import { payerState } from '../../../modules/payments/payer-status.ts';
import { chooseLocale, type Locale } from '../../pages/locale.ts';
import { payPageHeaders, renderNotFoundPage, renderPayPage } from '../../pages/pay-page.ts';
import { PAY_PAGE_MESSAGES } from '../../pages/pay-page-messages.ts';
import { qrSvg } from '../../pages/qr-svg.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { serveCheckoutPage } from './serve-checkout-page.ts';
import { serveLinkPage } from './serve-link-page.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { htmlResponse } from '../../schemas/html-response.ts';

function sendPage(reply: FastifyReply, status: number, locale: Locale, body: string): FastifyReply {
  return reply.code(status).headers(payPageHeaders(locale)).send(body);
}

/**
 * The payer's hosted page. Public: the payer has no API key; the unguessable payment id in the
 * URL is the capability (docs/decisions/payer-page-capability.md). Unknown and malformed ids get
 * the same HTML 404 page.
 *
 * The language (English or Indonesian) is `?lang=` if given, else the payer's Accept-Language
 * (docs/decisions/0022-payer-page-languages.md). `lang` is read by `chooseLocale`, which ignores
 * any value it does not know, rather than by a schema: a hand-edited `?lang=fr&lang=x` must still
 * get the page, not a JSON validation error.
 */
export function registerPayPage(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/pay/:id',
    {
      config: { public: true },
      schema: {
        operationId: 'getPayPage',
        tags: ['payer page'],
        summary: "The payer's hosted page: a payment's instructions or a checkout's choice (HTML)",
        description:
          'Server-rendered HTML for the payer: amount, instructions for the channel (virtual account, e-wallet QR code and links, counter payment code and outlets), expiry countdown and live status. Works without JavaScript. No API key: the payment id is the capability. Link payers to the payment’s `pay_url`. For a checkout (`cs_…`, its `url`) the page lists the methods the payer can choose among (each a form post to `/pay/{id}/select`), then shows the chosen payment’s instructions in place; `?choose=1` lists the methods again (go back and choose another). For a payment link (`plink_…`, its `url`) the page shows what the merchant asks for and a form (to `/pay/{id}/start`) that starts a checkout. In English or Indonesian: `?lang=en` or `?lang=id` if given (the page’s language switch sets it), else the best match of `Accept-Language`, else English; answers carry `Content-Language` and `Vary: Accept-Language`.',
        security: [],
        params: Type.Object({ id: Type.String({ description: '`pay_…`, `cs_…` or `plink_…`' }) }),
        response: {
          200: htmlResponse('The page (text/html).'),
          404: htmlResponse('Unknown payment, checkout or payment link (text/html).'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const locale = chooseLocale({ query: request.query, acceptLanguage: request.headers['accept-language'] });
      // One path for every payer page: the id's prefix says whose page it is.
      if (request.params.id.startsWith('cs_')) {
        const chooseAgain = (request.query as Record<string, unknown> | undefined)?.['choose'] === '1';
        return serveCheckoutPage(deps, reply, { checkoutId: request.params.id, locale, chooseAgain });
      }
      if (request.params.id.startsWith('plink_')) return serveLinkPage(deps, reply, { linkId: request.params.id, locale });
      const payment = await findPaymentForPayer(deps.store, request.params.id);
      if (payment === undefined) return sendPage(reply, 404, locale, renderNotFoundPage(locale));
      const now = deps.clock.now();
      const state = payerState(payment, now);
      const instructions = payment.instructions;
      const qr =
        state === 'payable' && instructions?.type === 'ewallet'
          ? await qrSvg(instructions.qr_string, PAY_PAGE_MESSAGES[locale].ewallet.qrLabel(instructions.provider_name))
          : undefined;
      return sendPage(reply, 200, locale, renderPayPage({ payment, state, now, qr, locale }));
    },
  );
}
