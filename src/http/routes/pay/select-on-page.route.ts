import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CHANNELS, type Channel } from '../../../kernel/index.ts';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { selectCheckoutMethod } from '../../../modules/checkouts/index.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { htmlResponse } from '../../schemas/html-response.ts';
import { payerFormScope, seeOther } from './payer-form-scope.ts';
import { localeOf, serveCheckoutPage } from './serve-checkout-page.ts';

/** These refusals mean "the page you chose on is out of date": show the page as it now is. */
const SHOW_AGAIN = new Set(['checkout_changed', 'checkout_busy', 'checkout_not_open']);

const FormSchema = Type.Object(
  {
    method: Type.String({ maxLength: 80, description: '`<channel>:<instrument code>`, e.g. `bank:BCA`.' }),
    version: Type.String({ pattern: '^[0-9]{1,9}$', description: 'The checkout version the page was rendered from.' }),
    lang: Type.Optional(Type.String({ maxLength: 8 })),
  },
  { additionalProperties: false },
);

function parseMethod(method: string): { channel: Channel; instrument: string } | undefined {
  const [channel, instrument] = method.split(':', 2);
  if (!CHANNELS.includes(channel as Channel) || instrument === undefined || !/^[A-Z0-9_]{1,40}$/.test(instrument))
    return undefined;
  return { channel: channel as Channel, instrument };
}

/**
 * The payer's choice on the hosted checkout page: an HTML form post (works without JavaScript),
 * the same selection as `POST /checkout/{id}/select` authorised by the page's capability (the id)
 * and conditional on the version the page showed; answered post/redirect/get.
 */
export function registerSelectOnPage(app: FastifyInstance, deps: RouteDeps): void {
  payerFormScope(app, (scope) => {
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/pay/:id/select',
      {
        config: { public: true },
        schema: {
          operationId: 'selectOnCheckoutPage',
          tags: ['payer page'],
          summary: "The payer's choice on the hosted checkout page (HTML form)",
          description:
            'The form the hosted checkout page posts (`application/x-www-form-urlencoded`). Selects like `POST /checkout/{id}/select`, authorised by the page (the unguessable `cs_…` id) instead of the client secret, and only if the checkout is still at the `version` the page showed. Answers `303 See Other` to the page; a method that cannot be used answers the page again with the reason. For your own UI use `POST /checkout/{id}/select`.',
          security: [],
          consumes: ['application/x-www-form-urlencoded'],
          params: Type.Object({ id: Type.String({ description: '`cs_…`' }) }),
          body: FormSchema,
          response: {
            ...errorResponses,
            303: Type.Null({ description: 'To the checkout page (`Location`).' }),
            404: htmlResponse('Unknown checkout (text/html).'),
            422: htmlResponse('The method cannot be used: the page again, with the reason (text/html).'),
            503: htmlResponse('A provider is unavailable: the page again, with the reason (text/html).'),
          },
        },
      },
      async (request, reply) => {
        const checkoutId = request.params.id;
        const locale = localeOf(request, request.body.lang);
        const page = `/pay/${encodeURIComponent(checkoutId)}?lang=${locale}`;
        const method = parseMethod(request.body.method);
        if (!isIdOf('checkout', checkoutId)) return serveCheckoutPage(deps, reply, { checkoutId, locale, chooseAgain: true });
        if (method === undefined) {
          return serveCheckoutPage(deps, reply, {
            checkoutId,
            locale,
            chooseAgain: true,
            status: 422,
            notice: { code: 'channel_not_offered' },
          });
        }
        const result = await selectCheckoutMethod(deps.selectCheckout, checkoutId, {
          authority: { kind: 'page', renderedVersion: Number(request.body.version) },
          channel: method.channel,
          instrument: method.instrument,
        });
        if (result.kind === 'response' || SHOW_AGAIN.has(result.code)) {
          const to = seeOther(page);
          // No body at all (not even `null`): the document declares none for a redirect.
          return reply
            .code(to.code)
            .headers(to.headers)
            .send(undefined as unknown as null);
        }
        if (result.code === 'resource_not_found')
          return serveCheckoutPage(deps, reply, { checkoutId, locale, chooseAgain: true });
        const status = httpStatusOf(result.code);
        return serveCheckoutPage(deps, reply, {
          checkoutId,
          locale,
          chooseAgain: true,
          status: status >= 500 ? 503 : 422,
          notice: { code: result.code },
        });
      },
    );
  });
}
