import { HttpClient } from "./http.js";
import { ListRequest } from "./pagination.js";
import { webhooks } from "./webhooks.js";
function paged(http, id, query, params, options) {
    return new ListRequest((startingAfter) => http.request(id, {
        query: { ...query, ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) },
        ...(params === undefined ? {} : { params: params }),
    }, options));
}
/** Payments: create, retrieve, list (auto-paginating), cancel, erase the payer's data. */
class Payments {
    http;
    constructor(http) {
        this.http = http;
    }
    /** POST /payment/create, with an Idempotency-Key (generated once per call unless given). */
    create(body, options) {
        return this.http.request('createPayment', { body }, options);
    }
    retrieve(id, options) {
        return this.http.request('getPayment', { params: { id } }, options);
    }
    /** Await it for one page, or `for await` over it for every payment (newest first). */
    list(query = {}, options) {
        return paged(this.http, 'listPayments', query, undefined, options);
    }
    cancel(id, body = {}, options) {
        return this.http.request('cancelPayment', { params: { id }, body }, options);
    }
    /** POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment (docs/payer-data.md). */
    erasePayerData(id, options) {
        return this.http.request('erasePayerData', { params: { id }, body: {} }, options);
    }
}
/**
 * Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select (the
 * payer's choice, authorised by the checkout's `client_secret`). Amounts are numbers, as for payments.
 */
class Checkouts {
    http;
    constructor(http) {
        this.http = http;
    }
    /**
     * POST /checkout/create, with an Idempotency-Key (generated once per call unless given). The
     * answer is the only one that carries the `client_secret`.
     */
    create(body, options) {
        return this.http.request('createCheckout', { body }, options);
    }
    retrieve(id, options) {
        return this.http.request('getCheckout', { params: { id } }, options);
    }
    /** Await it for one page, or `for await` over it for every checkout (newest first). */
    list(query = {}, options) {
        return paged(this.http, 'listCheckouts', query, undefined, options);
    }
    /** POST /checkout/{id}/expire: ends an open checkout now (an expired one is answered unchanged). */
    expire(id, options) {
        return this.http.request('expireCheckout', { params: { id }, body: {} }, options);
    }
    /**
     * POST /checkout/{id}/select: makes the payment for the chosen channel (canceling the previous
     * pending one) and answers the checkout with `payment` expanded. Authorised by `client_secret`
     * in the body, not by the API key. Retried like the keyed operations (see README).
     */
    select(id, body, options) {
        return this.http.request('selectCheckoutMethod', { params: { id }, body }, options);
    }
}
/**
 * Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount or one the
 * payer enters between bounds; each visit makes a checkout. Amounts are numbers, as for payments.
 */
class PaymentLinks {
    http;
    constructor(http) {
        this.http = http;
    }
    /**
     * POST /payment_link/create, with an Idempotency-Key (generated once per call unless given): send
     * `amount`, or `amount_min` and `amount_max`. The answer's `url` is the page to share.
     */
    create(body, options) {
        return this.http.request('createPaymentLink', { body }, options);
    }
    /** The link with its checkouts by status, what they collected and the uses left. */
    retrieve(id, options) {
        return this.http.request('getPaymentLink', { params: { id } }, options);
    }
    /** Await it for one page, or `for await` over it for every link (newest first). */
    list(query = {}, options) {
        return paged(this.http, 'listPaymentLinks', query, undefined, options);
    }
    /**
     * POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
     * payable; an inactive link is answered unchanged.
     */
    deactivate(id, options) {
        return this.http.request('deactivatePaymentLink', { params: { id }, body: {} }, options);
    }
    /**
     * POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
     * presses Pay (your own page can too; no API key is needed there). Each call is a new visit,
     * holding one of the link's uses while its checkout is open, so it is not retried after a lost
     * answer. The answer carries the checkout's `client_secret` and `url`.
     */
    startCheckout(id, body = {}, options) {
        return this.http.request('startPaymentLinkCheckout', { params: { id }, body }, options);
    }
}
/** Refunds: create (of a payment), retrieve. */
class Refunds {
    http;
    constructor(http) {
        this.http = http;
    }
    /** POST /payment/{id}/refund: all that is left of the payment (no amount) or part of it. */
    create(paymentId, body = {}, options) {
        return this.http.request('refundPayment', { params: { id: paymentId }, body }, options);
    }
    retrieve(id, options) {
        return this.http.request('getRefund', { params: { id } }, options);
    }
}
class PaymentMethods {
    http;
    constructor(http) {
        this.http = http;
    }
    list(query = {}, options) {
        return this.http.request('listPaymentMethods', { query }, options);
    }
}
class BalanceResource {
    http;
    constructor(http) {
        this.http = http;
    }
    retrieve(query = {}, options) {
        return this.http.request('getBalance', { query }, options);
    }
}
class Settlements {
    http;
    constructor(http) {
        this.http = http;
    }
    retrieve(id, options) {
        return this.http.request('getSettlement', { params: { id } }, options);
    }
    list(query = {}, options) {
        return paged(this.http, 'listSettlements', query, undefined, options);
    }
}
class SettlementExceptions {
    http;
    constructor(http) {
        this.http = http;
    }
    retrieve(id, options) {
        return this.http.request('getSettlementException', { params: { id } }, options);
    }
    list(query = {}, options) {
        return paged(this.http, 'listSettlementExceptions', query, undefined, options);
    }
}
/** The audit log (docs/audit-log.md): who changed what, newest first. */
class AuditLog {
    http;
    constructor(http) {
        this.http = http;
    }
    list(query = {}, options) {
        return paged(this.http, 'listAuditLog', query, undefined, options);
    }
}
class Reconciliation {
    http;
    constructor(http) {
        this.http = http;
    }
    /** POST /reconciliation/create, with an Idempotency-Key. */
    create(body, options) {
        return this.http.request('createReconciliation', { body }, options);
    }
    retrieve(id, options) {
        return this.http.request('getReconciliation', { params: { id } }, options);
    }
    /** Every line of a reconciliation, paged (`for await` for all of them). */
    lines(id, query = {}, options) {
        return paged(this.http, 'listReconciliationLines', query, { id }, options);
    }
    /** The lines as CSV text. */
    exportCsv(id, options) {
        return this.http.request('exportReconciliationLines', { params: { id } }, options);
    }
}
class WebhookEndpoints {
    http;
    constructor(http) {
        this.http = http;
    }
    /** The answer carries the signing `secret` (`whsec_…`): the only time it is shown. */
    create(body, options) {
        return this.http.request('createWebhookEndpoint', { body }, options);
    }
    retrieve(id, options) {
        return this.http.request('getWebhookEndpoint', { params: { id } }, options);
    }
    /** All endpoints of the key's environment (at most 20: one page). */
    list(options) {
        return this.http.request('listWebhookEndpoints', {}, options);
    }
    update(id, body, options) {
        return this.http.request('updateWebhookEndpoint', { params: { id }, body }, options);
    }
    delete(id, options) {
        return this.http.request('deleteWebhookEndpoint', { params: { id } }, options);
    }
    rotateSecret(id, body = {}, options) {
        return this.http.request('rotateWebhookEndpointSecret', { params: { id }, body }, options);
    }
}
class Events {
    http;
    constructor(http) {
        this.http = http;
    }
    retrieve(id, options) {
        return this.http.request('getEvent', { params: { id } }, options);
    }
    /** Newest first; `for await` pages through all of them. */
    list(query = {}, options) {
        return paged(this.http, 'listEvents', query, undefined, options);
    }
    /** POST /event/{id}/redeliver: send the event again (to every subscriber, one endpoint, or the callback_url). */
    resend(id, body = {}, options) {
        return this.http.request('redeliverEvent', { params: { id }, body }, options);
    }
    /** The delivery attempts of one event, oldest first. */
    deliveries(id, options) {
        return this.http.request('listEventDeliveries', { params: { id } }, options);
    }
}
class CallbackSecret {
    http;
    constructor(http) {
        this.http = http;
    }
    /** The secret that signs callback_url requests; shown on the first read only. */
    retrieve(options) {
        return this.http.request('getCallbackSecret', {}, options);
    }
    rotate(body = {}, options) {
        return this.http.request('rotateCallbackSecret', { body }, options);
    }
}
class Sandbox {
    http;
    constructor(http) {
        this.http = http;
    }
    /** Sandbox keys only: make the simulated provider act on a payment (pay, fail, expire, reverse, settle). */
    simulate(paymentId, body, options) {
        return this.http.request('simulatePayment', { params: { id: paymentId }, body }, options);
    }
}
/**
 * The Tributary API client.
 *
 * ```ts
 * const tributary = new Tributary(process.env.TRIBUTARY_API_KEY!, { baseUrl: 'http://127.0.0.1:8080' });
 * const payment = await tributary.payments.create({ amount: 150000, currency: 'IDR', reference_no: 'order-1001' });
 * ```
 */
export class Tributary {
    payments;
    refunds;
    checkouts;
    paymentLinks;
    paymentMethods;
    balance;
    settlements;
    settlementExceptions;
    reconciliation;
    webhookEndpoints;
    events;
    callbackSecret;
    auditLog;
    sandbox;
    /** Webhook verification needs no API key: also exported on its own as `webhooks`. */
    webhooks = webhooks;
    constructor(apiKey, options = {}) {
        const http = new HttpClient(apiKey, options);
        this.payments = new Payments(http);
        this.refunds = new Refunds(http);
        this.checkouts = new Checkouts(http);
        this.paymentLinks = new PaymentLinks(http);
        this.paymentMethods = new PaymentMethods(http);
        this.balance = new BalanceResource(http);
        this.settlements = new Settlements(http);
        this.settlementExceptions = new SettlementExceptions(http);
        this.reconciliation = new Reconciliation(http);
        this.webhookEndpoints = new WebhookEndpoints(http);
        this.events = new Events(http);
        this.callbackSecret = new CallbackSecret(http);
        this.auditLog = new AuditLog(http);
        this.sandbox = new Sandbox(http);
    }
}
