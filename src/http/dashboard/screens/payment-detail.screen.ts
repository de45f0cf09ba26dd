import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { checkoutIdsOfPayments } from '../../../modules/checkouts/index.ts';
import { paymentTimeline } from '../../../modules/timeline/payment-timeline.ts';
import { createRefund } from '../../../modules/refunds/create-refund.ts';
import { cancelPayment } from '../../../modules/payments/cancel-payment.ts';
import { REFUND_REASONS, REFUND_SOURCES, type RefundReason, type RefundSource } from '../../../modules/refunds/refund-types.ts';
import { type RedeliveryTarget, redeliverEvent } from '../../../modules/webhooks/delivery-service.ts';
import type { Notice } from '../dashboard-layout.ts';
import {
  DashboardError,
  formKeyOf,
  formOf,
  newFormKey,
  noticeOf,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';
import { paymentPage } from './payment-detail.view.ts';

type WithId = { Params: { id: string } };

/**
 * One payment with its timeline (`GET /dashboard/payments/{id}`), and what can be done from it:
 * cancel it while it is pending, refund it, redeliver one of its events. A refused action shows the payment again with the reason.
 */
export function registerPaymentDetailScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (request: FastifyRequest, reply: FastifyReply, id: string, statusCode: number, notice: Notice) => {
    const { scope, frame } = signedIn(request);
    const { merchantId, environment } = scope;
    const timeline = isIdOf('payment', id) ? await paymentTimeline(deps.store, merchantId, environment, id) : undefined;
    if (timeline === undefined) throw new DashboardError(404, 'No such payment.');
    const checkoutOf = await checkoutIdsOfPayments(deps.store, merchantId, environment, [id]);
    return send(
      reply,
      statusCode,
      paymentPage(frame('payments'), timeline, {
        publicBaseUrl: deps.publicBaseUrl,
        checkoutId: checkoutOf.get(id),
        refundIdempotencyKey: newFormKey(),
        cancelIdempotencyKey: newFormKey(),
        notice,
      }),
    );
  };

  dashboard.get<WithId>('/payments/:id', sessionRoute('payments.read'), async (request, reply) =>
    show(request, reply, request.params.id, 200, noticeOf(request)),
  );

  dashboard.post<WithId>('/payments/:id/refund', sessionRoute('refunds.create'), async (request, reply) => {
    const id = request.params.id;
    const form = formOf(request);
    const amount = form['amount']?.trim() ?? '';
    if (amount !== '' && !/^\d{1,15}(\.\d{1,4})?$/.test(amount)) {
      return show(request, reply, id, 400, { kind: 'bad', text: 'The amount must be a number like 50000 or 125.50.' });
    }
    const reason = form['reason'] ?? '';
    const source = form['source'] ?? '';
    const result = await createRefund(
      deps.refund,
      signedIn(request).principal,
      id,
      {
        amountText: amount === '' ? null : amount,
        reason: (REFUND_REASONS as readonly string[]).includes(reason) ? (reason as RefundReason) : null,
        source: (REFUND_SOURCES as readonly string[]).includes(source) ? (source as RefundSource) : null,
      },
      formKeyOf(form),
    );
    if (result.kind === 'failure') {
      return show(request, reply, id, httpStatusOf(result.code), { kind: 'bad', text: result.message });
    }
    return redirect(reply, `/dashboard/payments/${id}?notice=refund`);
  });

  // Cancel a pending payment: the API's cancel (the provider closes it first) with the session's
  // principal. The form's Idempotency-Key makes a double submit one cancel; a payment that is no
  // longer pending (paid meanwhile, or canceled by another tab without the same key) is refused
  // with the API's reason, and nothing changes.
  dashboard.post<WithId>('/payments/:id/cancel', sessionRoute('payments.cancel'), async (request, reply) => {
    const id = request.params.id;
    if (!isIdOf('payment', id)) throw new DashboardError(404, 'No such payment.');
    const result = await cancelPayment(
      deps.cancelPayment,
      signedIn(request).principal,
      id,
      { cancellationReason: null },
      formKeyOf(formOf(request)),
    );
    if (result.kind === 'failure') {
      if (result.code === 'resource_not_found') throw new DashboardError(404, 'No such payment.');
      return show(request, reply, id, httpStatusOf(result.code), { kind: 'bad', text: result.message });
    }
    return redirect(reply, `/dashboard/payments/${id}?notice=payment_canceled`);
  });

  dashboard.post<WithId>('/events/:id/redeliver', sessionRoute('events.redeliver'), async (request, reply) => {
    const form = formOf(request);
    const paymentId = form['payment_id'] ?? '';
    if (!isIdOf('payment', paymentId)) throw new DashboardError(400, 'The form names no payment.');
    const eventId = request.params.id;
    if (!isIdOf('event', eventId)) throw new DashboardError(404, 'No such event.');
    const target = redeliveryTargetOf(form);
    const result = await redeliverEvent({ store: deps.store, clock: deps.clock }, signedIn(request).principal, eventId, target);
    if (!result.ok) return show(request, reply, paymentId, httpStatusOf(result.code), { kind: 'bad', text: result.message });
    return redirect(reply, `/dashboard/payments/${paymentId}?notice=redelivered#event-${eventId}`);
  });
}

/** Which of the event's targets the button asked for: every one, one endpoint, or the callback_url. */
function redeliveryTargetOf(form: Record<string, string>): RedeliveryTarget {
  if (form['target'] === 'endpoint') {
    const endpointId = form['endpoint_id'] ?? '';
    if (!isIdOf('webhookEndpoint', endpointId)) throw new DashboardError(404, 'No such webhook endpoint.');
    return { kind: 'endpoint', endpointId };
  }
  return form['target'] === 'callback_url' ? { kind: 'callback_url' } : { kind: 'all' };
}
