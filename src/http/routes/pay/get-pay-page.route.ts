import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { findPaymentForPayer } from '../../../modules/payments/payment-query-repo.ts';
import { payerState } from '../../../modules/payments/payer-status.ts';
import { PAY_PAGE_HEADERS, renderNotFoundPage, renderPayPage } from '../../pages/pay-page.ts';
import { qrSvg } from '../../pages/qr-svg.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';

const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String({ description }) } },
});

function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).headers(PAY_PAGE_HEADERS).send(body);
}

/**
 * The payer's hosted page. Public: the payer has no API key; the unguessable payment id in the
 * URL is the capability (docs/decisions/payer-page-capability.md). Unknown and malformed ids get
 * the same HTML 404 page.
 */
export function registerPayPage(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/pay/:id',
    {
      config: { public: true },
      schema: {
        operationId: 'getPayPage',
        tags: ['payer page'],
        summary: "The payer's hosted instructions page (HTML)",
        description:
          'Server-rendered HTML for the payer: amount, instructions for the channel (virtual account, e-wallet QR code and links, counter payment code and outlets), expiry countdown and live status. Works without JavaScript. No API key: the payment id is the capability. Link payers to the payment’s `pay_url`.',
        security: [],
        params: Type.Object({ id: Type.String({ description: '`pay_…`' }) }),
        // The page is HTML, per status; refusals before the page is looked up (a malformed path,
        // rate limit, shutdown) are the JSON error body, so `produces` (which would label every
        // status text/html) is not used.
        response: {
          200: htmlResponse('The page (text/html).'),
          404: htmlResponse('Unknown payment (text/html).'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const payment = await findPaymentForPayer(deps.store, request.params.id);
      if (payment === undefined) return sendPage(reply, 404, renderNotFoundPage());
      const now = deps.clock.now();
      const state = payerState(payment, now);
      const instructions = payment.instructions;
      const qr =
        state === 'payable' && instructions?.type === 'ewallet'
          ? await qrSvg(instructions.qr_string, `QR code to pay with ${instructions.provider_name}`)
          : undefined;
      return sendPage(reply, 200, renderPayPage({ payment, state, now, qr }));
    },
  );
}
