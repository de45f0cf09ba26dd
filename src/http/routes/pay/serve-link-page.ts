import type { FastifyReply } from 'fastify';
import { isIdOf } from '../../../lib/ids.ts';
import { randomToken } from '../../../lib/random.ts';
import { findMerchant } from '../../../modules/merchants/index.ts';
import { paymentLinkForPayer } from '../../../modules/payment-links/index.ts';
import { checkoutPageHeaders } from '../../pages/checkout-page.ts';
import { renderLinkNotFound, renderLinkPage } from '../../pages/link-page.ts';
import type { Locale } from '../../pages/locale.ts';
import type { RouteDeps } from '../../route-deps.ts';

/**
 * The payment-link page for GET /pay/plink_… and for a refused visit (docs/checkout.md section 8).
 * Each rendering names a new visit (a random token in the form), so one form starts one checkout.
 */
export async function serveLinkPage(
  deps: RouteDeps,
  reply: FastifyReply,
  o: {
    linkId: string;
    locale: Locale;
    status?: number;
    notice?: { code: string; issue: string | undefined };
    amountText?: string;
    visitToken?: string;
  },
): Promise<FastifyReply> {
  reply.headers(checkoutPageHeaders(o.locale));
  const found = isIdOf('paymentLink', o.linkId) ? await paymentLinkForPayer(deps, o.linkId) : undefined;
  const merchant = found === undefined ? undefined : await findMerchant(deps.store, found.link.merchantId);
  if (found === undefined || merchant === undefined) return reply.code(404).send(renderLinkNotFound(o.locale));
  return reply.code(o.status ?? 200).send(
    renderLinkPage({
      link: found.link,
      merchantName: merchant.name,
      availability: found.availability,
      locale: o.locale,
      // A refused visit keeps its token: the payer corrects the amount and posts the same visit.
      visitToken: o.visitToken ?? randomToken(16),
      notice: o.notice,
      amountText: o.amountText,
    }),
  );
}

/**
 * What the payer typed, as the exact decimal text the visit reads: the currency code or "Rp" and
 * spaces dropped, and the page language's separators undone (id "150.000,50" → "150000.50",
 * en "150,000.50" → "150000.50"). Anything else is passed on unchanged and refused there.
 */
export function payerAmountText(raw: string, locale: Locale): string {
  const text = raw.replace(/\s+/g, '').replace(/^(?:[A-Za-z]{3}|Rp\.?)/i, '');
  const [group, decimal] = locale === 'id' ? ['.', ','] : [',', '.'];
  const grouped = new RegExp(`^\\d{1,3}(\\${group}\\d{3})+(\\${decimal}\\d+)?$`);
  const plain = new RegExp(`^\\d+(\\${decimal}\\d+)?$`);
  if (!grouped.test(text) && !plain.test(text)) return raw.trim();
  return text.split(group).join('').replace(decimal, '.');
}
