import type { FastifyReply, FastifyRequest } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import { type PayerCheckout, payerCheckout } from '../../../modules/checkouts/index.ts';
import { checkoutPageHeaders, renderCheckoutNotFound, renderCheckoutPage } from '../../pages/checkout-page.ts';
import { chooseLocale, type Locale } from '../../pages/locale.ts';
import { qrSvg } from '../../pages/qr-svg.ts';
import { PAY_PAGE_MESSAGES } from '../../pages/pay-page-messages.ts';
import type { RouteDeps } from '../../route-deps.ts';

/** The language of a payer page request: `?lang=` (or the form's `lang`), else Accept-Language. */
export function localeOf(request: FastifyRequest, lang?: string): Locale {
  return chooseLocale({
    query: lang === undefined ? request.query : { lang },
    acceptLanguage: request.headers['accept-language'],
  });
}

export type CheckoutPageNotice = { code: string } | undefined;

/**
 * The hosted checkout page (docs/checkout.md, section 7) for GET /pay/cs_… and for a refused form
 * post: what to show is decided by the checkouts module (`payerCheckout`), drawn here.
 */
export async function serveCheckoutPage(
  deps: RouteDeps,
  reply: FastifyReply,
  o: { checkoutId: string; locale: Locale; chooseAgain: boolean; status?: number; notice?: CheckoutPageNotice },
): Promise<FastifyReply> {
  const now = deps.clock.now();
  const view = isIdOf('checkout', o.checkoutId)
    ? await payerCheckout({ store: deps.store, connectors: deps.connectors }, o.checkoutId, { now, chooseAgain: o.chooseAgain })
    : undefined;
  reply.headers(checkoutPageHeaders(o.locale));
  if (view === undefined) return reply.code(404).send(renderCheckoutNotFound(o.locale));
  const qr = await qrFor(view, o.locale);
  return reply.code(o.status ?? 200).send(renderCheckoutPage({ view, now, locale: o.locale, qr, notice: o.notice }));
}

async function qrFor(view: PayerCheckout, locale: Locale) {
  const instructions = view.payment?.instructions;
  if (view.state !== 'paying' || instructions?.type !== 'ewallet') return undefined;
  return qrSvg(instructions.qr_string, PAY_PAGE_MESSAGES[locale].ewallet.qrLabel(instructions.provider_name));
}
