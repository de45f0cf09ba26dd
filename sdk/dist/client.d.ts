import type * as api from './generated/api.ts';
import { type ClientOptions, HttpClient, type RequestOptions, type WithResponse } from './http.ts';
import { ListRequest } from './pagination.ts';
type Result<T> = Promise<WithResponse<T>>;
/** Payments: create, retrieve, list (auto-paginating), cancel, erase the payer's data. */
declare class Payments {
    private readonly http;
    constructor(http: HttpClient);
    /** POST /payment/create, with an Idempotency-Key (generated once per call unless given). */
    create(body: api.CreatePaymentBody, options?: RequestOptions): Result<api.Payment>;
    retrieve(id: string, options?: RequestOptions): Result<api.Payment>;
    /** Await it for one page, or `for await` over it for every payment (newest first). */
    list(query?: api.ListPaymentsQuery, options?: RequestOptions): ListRequest<api.Payment, api.PaymentList>;
    cancel(id: string, body?: api.CancelPaymentBody, options?: RequestOptions): Result<api.Payment>;
    /** POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment (docs/payer-data.md). */
    erasePayerData(id: string, options?: RequestOptions): Result<api.Payment>;
}
/** A checkout as `select` answers it: `payment` expanded to the payment just made (its instructions). */
export type CheckoutWithPayment = api.Checkout & {
    payment: api.Payment;
};
/**
 * Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select (the
 * payer's choice, authorised by the checkout's `client_secret`). Amounts are numbers, as for payments.
 */
declare class Checkouts {
    private readonly http;
    constructor(http: HttpClient);
    /**
     * POST /checkout/create, with an Idempotency-Key (generated once per call unless given). The
     * answer is the only one that carries the `client_secret`.
     */
    create(body: api.CreateCheckoutBody, options?: RequestOptions): Result<api.Checkout>;
    retrieve(id: string, options?: RequestOptions): Result<api.Checkout>;
    /** Await it for one page, or `for await` over it for every checkout (newest first). */
    list(query?: api.ListCheckoutsQuery, options?: RequestOptions): ListRequest<api.Checkout, api.CheckoutList>;
    /** POST /checkout/{id}/expire: ends an open checkout now (an expired one is answered unchanged). */
    expire(id: string, options?: RequestOptions): Result<api.Checkout>;
    /**
     * POST /checkout/{id}/select: makes the payment for the chosen channel (canceling the previous
     * pending one) and answers the checkout with `payment` expanded. Authorised by `client_secret`
     * in the body, not by the API key. Retried like the keyed operations (see README).
     */
    select(id: string, body: api.SelectCheckoutMethodBody, options?: RequestOptions): Result<CheckoutWithPayment>;
}
/**
 * Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount or one the
 * payer enters between bounds; each visit makes a checkout. Amounts are numbers, as for payments.
 */
declare class PaymentLinks {
    private readonly http;
    constructor(http: HttpClient);
    /**
     * POST /payment_link/create, with an Idempotency-Key (generated once per call unless given): send
     * `amount`, or `amount_min` and `amount_max`. The answer's `url` is the page to share.
     */
    create(body: api.CreatePaymentLinkBody, options?: RequestOptions): Result<api.PaymentLink>;
    /** The link with its checkouts by status, what they collected and the uses left. */
    retrieve(id: string, options?: RequestOptions): Result<api.PaymentLink>;
    /** Await it for one page, or `for await` over it for every link (newest first). */
    list(query?: api.ListPaymentLinksQuery, options?: RequestOptions): ListRequest<api.PaymentLink, api.PaymentLinkList>;
    /**
     * POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
     * payable; an inactive link is answered unchanged.
     */
    deactivate(id: string, options?: RequestOptions): Result<api.PaymentLink>;
    /**
     * POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
     * presses Pay (your own page can too; no API key is needed there). Each call is a new visit,
     * holding one of the link's uses while its checkout is open, so it is not retried after a lost
     * answer. The answer carries the checkout's `client_secret` and `url`.
     */
    startCheckout(id: string, body?: api.StartPaymentLinkCheckoutBody, options?: RequestOptions): Result<api.Checkout>;
}
/** Refunds: create (of a payment), retrieve. */
declare class Refunds {
    private readonly http;
    constructor(http: HttpClient);
    /** POST /payment/{id}/refund: all that is left of the payment (no amount) or part of it. */
    create(paymentId: string, body?: api.RefundPaymentBody, options?: RequestOptions): Result<api.Refund>;
    retrieve(id: string, options?: RequestOptions): Result<api.Refund>;
}
declare class PaymentMethods {
    private readonly http;
    constructor(http: HttpClient);
    list(query?: api.ListPaymentMethodsQuery, options?: RequestOptions): Result<api.PaymentMethodList>;
}
declare class BalanceResource {
    private readonly http;
    constructor(http: HttpClient);
    retrieve(query?: api.GetBalanceQuery, options?: RequestOptions): Result<api.Balance>;
}
declare class Settlements {
    private readonly http;
    constructor(http: HttpClient);
    retrieve(id: string, options?: RequestOptions): Result<api.Settlement>;
    list(query?: api.ListSettlementsQuery, options?: RequestOptions): ListRequest<api.Settlement, api.SettlementList>;
}
declare class SettlementExceptions {
    private readonly http;
    constructor(http: HttpClient);
    retrieve(id: string, options?: RequestOptions): Result<api.SettlementException>;
    list(query?: api.ListSettlementExceptionsQuery, options?: RequestOptions): ListRequest<api.SettlementException, api.SettlementExceptionList>;
}
/** The audit log (docs/audit-log.md): who changed what, newest first. */
declare class AuditLog {
    private readonly http;
    constructor(http: HttpClient);
    list(query?: api.ListAuditLogQuery, options?: RequestOptions): ListRequest<api.AuditEntry, api.AuditEntryList>;
}
type ReconciliationLine = api.ReconciliationLineList['data'][number];
declare class Reconciliation {
    private readonly http;
    constructor(http: HttpClient);
    /** POST /reconciliation/create, with an Idempotency-Key. */
    create(body: api.CreateReconciliationBody, options?: RequestOptions): Result<api.Reconciliation>;
    retrieve(id: string, options?: RequestOptions): Result<api.Reconciliation>;
    /** Every line of a reconciliation, paged (`for await` for all of them). */
    lines(id: string, query?: api.ListReconciliationLinesQuery, options?: RequestOptions): ListRequest<ReconciliationLine, api.ReconciliationLineList>;
    /** The lines as CSV text. */
    exportCsv(id: string, options?: RequestOptions): Promise<string>;
}
declare class WebhookEndpoints {
    private readonly http;
    constructor(http: HttpClient);
    /** The answer carries the signing `secret` (`whsec_…`): the only time it is shown. */
    create(body: api.CreateWebhookEndpointBody, options?: RequestOptions): Result<api.WebhookEndpointWithSecret>;
    retrieve(id: string, options?: RequestOptions): Result<api.WebhookEndpoint>;
    /** All endpoints of the key's environment (at most 20: one page). */
    list(options?: RequestOptions): Result<api.ListWebhookEndpointsResponse>;
    update(id: string, body: api.UpdateWebhookEndpointBody, options?: RequestOptions): Result<api.WebhookEndpoint>;
    delete(id: string, options?: RequestOptions): Result<api.DeleteWebhookEndpointResponse>;
    rotateSecret(id: string, body?: api.RotateWebhookEndpointSecretBody, options?: RequestOptions): Result<api.WebhookEndpointWithSecret>;
}
declare class Events {
    private readonly http;
    constructor(http: HttpClient);
    retrieve(id: string, options?: RequestOptions): Result<api.Event>;
    /** Newest first; `for await` pages through all of them. */
    list(query?: api.ListEventsQuery, options?: RequestOptions): ListRequest<api.Event, api.ListEventsResponse>;
    /** POST /event/{id}/redeliver: send the event again (to every subscriber, one endpoint, or the callback_url). */
    resend(id: string, body?: api.RedeliverEventBody, options?: RequestOptions): Result<api.RedeliverEventResponse>;
    /** The delivery attempts of one event, oldest first. */
    deliveries(id: string, options?: RequestOptions): Result<api.ListEventDeliveriesResponse>;
}
declare class CallbackSecret {
    private readonly http;
    constructor(http: HttpClient);
    /** The secret that signs callback_url requests; shown on the first read only. */
    retrieve(options?: RequestOptions): Result<api.CallbackSecret>;
    rotate(body?: api.RotateCallbackSecretBody, options?: RequestOptions): Result<api.CallbackSecret>;
}
declare class Sandbox {
    private readonly http;
    constructor(http: HttpClient);
    /** Sandbox keys only: make the simulated provider act on a payment (pay, fail, expire, reverse, settle). */
    simulate(paymentId: string, body: api.SimulatePaymentBody, options?: RequestOptions): Result<api.SimulatePaymentResponse>;
}
/**
 * The Tributary API client.
 *
 * ```ts
 * const tributary = new Tributary(process.env.TRIBUTARY_API_KEY!, { baseUrl: 'http://127.0.0.1:8080' });
 * const payment = await tributary.payments.create({ amount: 150000, currency: 'IDR', reference_no: 'order-1001' });
 * ```
 */
export declare class Tributary {
    readonly payments: Payments;
    readonly refunds: Refunds;
    readonly checkouts: Checkouts;
    readonly paymentLinks: PaymentLinks;
    readonly paymentMethods: PaymentMethods;
    readonly balance: BalanceResource;
    readonly settlements: Settlements;
    readonly settlementExceptions: SettlementExceptions;
    readonly reconciliation: Reconciliation;
    readonly webhookEndpoints: WebhookEndpoints;
    readonly events: Events;
    readonly callbackSecret: CallbackSecret;
    readonly auditLog: AuditLog;
    readonly sandbox: Sandbox;
    /** Webhook verification needs no API key: also exported on its own as `webhooks`. */
    readonly webhooks: {
        verify: typeof import("./webhooks.ts").verify;
    };
    constructor(apiKey: string, options?: ClientOptions);
}
export {};
