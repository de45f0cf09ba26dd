import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { expireCheckoutForMerchant } from '../../../modules/checkouts/index.ts';
import { checkoutTimeline } from '../../../modules/timeline/checkout-timeline.ts';
import type { Notice } from '../dashboard-layout.ts';
import { DashboardError, noticeOf, redirect, type ScreenDeps, send, sessionRoute, signedIn } from '../dashboard-plugin.ts';
import { checkoutPage } from './checkout-detail.view.ts';

type WithId = { Params: { id: string } };

/**
 * One checkout (`GET /dashboard/checkouts/{id}`): its fields, its payments in order and its
 * timeline; and its Expire action (`POST …/expire`, the API's expire with the session's
 * principal). A refused expire shows the checkout again with the reason.
 */
export function registerCheckoutDetailScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (request: FastifyRequest, reply: FastifyReply, id: string, statusCode: number, notice: Notice) => {
    const { scope, frame } = signedIn(request);
    const timeline = isIdOf('checkout', id)
      ? await checkoutTimeline(deps.store, scope.merchantId, scope.environment, id)
      : undefined;
    if (timeline === undefined) throw new DashboardError(404, 'No such checkout.');
    return send(reply, statusCode, checkoutPage(frame('checkouts'), timeline, { publicBaseUrl: deps.publicBaseUrl, notice }));
  };

  dashboard.get<WithId>('/checkouts/:id', sessionRoute('payments.read'), async (request, reply) =>
    show(request, reply, request.params.id, 200, noticeOf(request)),
  );

  dashboard.post<WithId>('/checkouts/:id/expire', sessionRoute('checkouts.expire'), async (request, reply) => {
    const id = request.params.id;
    if (!isIdOf('checkout', id)) throw new DashboardError(404, 'No such checkout.');
    // Expiring twice (a double click) is harmless: an expired checkout is answered unchanged.
    const result = await expireCheckoutForMerchant(deps.expireCheckout, signedIn(request).principal, id);
    if (result.kind === 'failure') {
      if (result.code === 'resource_not_found') throw new DashboardError(404, 'No such checkout.');
      return show(request, reply, id, httpStatusOf(result.code), { kind: 'bad', text: result.message });
    }
    return redirect(reply, `/dashboard/checkouts/${id}?notice=checkout_expired`);
  });
}
