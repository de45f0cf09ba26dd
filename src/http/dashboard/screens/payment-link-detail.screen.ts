import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import {
  deactivatePaymentLinkForMerchant,
  EMPTY_SUMMARY,
  findPaymentLink,
  paymentLinkUrl,
  summariesOfPaymentLinks,
} from '../../../modules/payment-links/index.ts';
import { qrSvg } from '../../pages/qr-svg.ts';
import { DASHBOARD_CSP_WITH_COPY_SCRIPT, type Notice } from '../dashboard-layout.ts';
import { DashboardError, noticeOf, redirect, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';
import { paymentLinkPage } from './payment-link.view.ts';

type WithId = { Params: { id: string } };

/**
 * One payment link (`GET /dashboard/payment-links/{id}`): its URL with a copy button and a QR
 * code of it (rendered here, inline SVG: no image request, no outside service), its checkouts and
 * what they collected; and its Deactivate action (`POST …/deactivate`, the API's deactivate with
 * the session's principal).
 */
export function registerPaymentLinkDetailScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (request: FastifyRequest, reply: FastifyReply, id: string, statusCode: number, notice: Notice) => {
    const { scope, frame } = signedIn(request);
    const link = isIdOf('paymentLink', id)
      ? await findPaymentLink(deps.store, scope.merchantId, scope.environment, id)
      : undefined;
    if (link === undefined) throw new DashboardError(404, 'No such payment link.');
    const now = deps.clock.now();
    const summary =
      (await summariesOfPaymentLinks(deps.store, scope.merchantId, scope.environment, [id], now)).get(id) ?? EMPTY_SUMMARY;
    const url = paymentLinkUrl(deps.publicBaseUrl, link.id);
    const qr = await qrSvg(url, `QR code of the payment link ${link.id}`);
    // This page alone runs a script (the copy button's), allowed by its hash.
    reply.header('Content-Security-Policy', DASHBOARD_CSP_WITH_COPY_SCRIPT);
    return send(reply, statusCode, paymentLinkPage(frame('payment-links'), link, summary, { url, qr, now, notice }));
  };

  dashboard.get<WithId>('/payment-links/:id', sessionRoute('payments.read'), async (request, reply) =>
    show(request, reply, request.params.id, 200, noticeOf(request)),
  );

  dashboard.post<WithId>('/payment-links/:id/deactivate', sessionRoute('payment_links.manage'), async (request, reply) => {
    const id = request.params.id;
    if (!isIdOf('paymentLink', id)) throw new DashboardError(404, 'No such payment link.');
    // Deactivating twice (a double click) is harmless: an inactive link is answered unchanged.
    const result = await deactivatePaymentLinkForMerchant(deps.paymentLinks, signedIn(request).principal, id);
    if (result.kind === 'failure') {
      if (result.code === 'resource_not_found') throw new DashboardError(404, 'No such payment link.');
      return show(request, reply, id, httpStatusOf(result.code), { kind: 'bad', text: result.message });
    }
    return redirect(reply, `/dashboard/payment-links/${id}?notice=payment_link_deactivated`);
  });
}
