import type * as api from './generated/api.ts';
import { type ClientOptions, HttpClient, type RequestOptions, type WithResponse } from './http.ts';
import { ListRequest } from './pagination.ts';
import { webhooks } from './webhooks.ts';

/*
 * The resources of the API as methods. Each method names an operation of the generated table
 * (sdk/src/generated/api.ts): paths, methods, Idempotency-Key use and every type come from the
 * OpenAPI document; only the names of the methods are chosen here.
 */

type Result<T> = Promise<WithResponse<T>>;

function paged<K extends api.OperationId, Item, Page extends { object: 'list'; data: Item[]; has_more: boolean }>(
  http: HttpClient,
  id: K,
  query: Record<string, unknown>,
  params: Record<string, string> | undefined,
  options: RequestOptions | undefined,
): ListRequest<Item, Page> {
  return new ListRequest<Item, Page>(
    (startingAfter) =>
      http.request(
        id,
        {
          query: { ...query, ...(startingAfter === undefined ? {} : { starting_after: startingAfter }) } as never,
          ...(params === undefined ? {} : { params: params as never }),
        },
        options,
      ) as unknown as Promise<WithResponse<Page>>,
  );
}

/** Payments: create, retrieve, list (auto-paginating), cancel, erase the payer's data. */
class Payments {
  constructor(private readonly http: HttpClient) {}
  /** POST /payment/create, with an Idempotency-Key (generated once per call unless given). */
  create(body: api.CreatePaymentBody, options?: RequestOptions): Result<api.Payment> {
    return this.http.request('createPayment', { body }, options);
  }
  retrieve(id: string, options?: RequestOptions): Result<api.Payment> {
    return this.http.request('getPayment', { params: { id } }, options);
  }
  /** Await it for one page, or `for await` over it for every payment (newest first). */
  list(query: api.ListPaymentsQuery = {}, options?: RequestOptions): ListRequest<api.Payment, api.PaymentList> {
    return paged(this.http, 'listPayments', query, undefined, options);
  }
  cancel(id: string, body: api.CancelPaymentBody = {}, options?: RequestOptions): Result<api.Payment> {
    return this.http.request('cancelPayment', { params: { id }, body }, options);
  }
  /** POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment (docs/payer-data.md). */
  erasePayerData(id: string, options?: RequestOptions): Result<api.Payment> {
    return this.http.request('erasePayerData', { params: { id }, body: {} }, options);
  }
}

/** A checkout as `select` answers it: `payment` expanded to the payment just made (its instructions). */
export type CheckoutWithPayment = api.Checkout & { payment: api.Payment };

/**
 * Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select (the
 * payer's choice, authorised by the checkout's `client_secret`). Amounts are numbers, as for payments.
 */
class Checkouts {
  constructor(private readonly http: HttpClient) {}
  /**
   * POST /checkout/create, with an Idempotency-Key (generated once per call unless given). The
   * answer is the only one that carries the `client_secret`.
   */
  create(body: api.CreateCheckoutBody, options?: RequestOptions): Result<api.Checkout> {
    return this.http.request('createCheckout', { body }, options);
  }
  retrieve(id: string, options?: RequestOptions): Result<api.Checkout> {
    return this.http.request('getCheckout', { params: { id } }, options);
  }
  /** Await it for one page, or `for await` over it for every checkout (newest first). */
  list(query: api.ListCheckoutsQuery = {}, options?: RequestOptions): ListRequest<api.Checkout, api.CheckoutList> {
    return paged(this.http, 'listCheckouts', query, undefined, options);
  }
  /** POST /checkout/{id}/expire: ends an open checkout now (an expired one is answered unchanged). */
  expire(id: string, options?: RequestOptions): Result<api.Checkout> {
    return this.http.request('expireCheckout', { params: { id }, body: {} }, options);
  }
  /**
   * POST /checkout/{id}/select: makes the payment for the chosen channel (canceling the previous
   * pending one) and answers the checkout with `payment` expanded. Authorised by `client_secret`
   * in the body, not by the API key. Retried like the keyed operations (see README).
   */
  select(id: string, body: api.SelectCheckoutMethodBody, options?: RequestOptions): Result<CheckoutWithPayment> {
    return this.http.request('selectCheckoutMethod', { params: { id }, body }, options) as Result<CheckoutWithPayment>;
  }
}

/**
 * Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount or one the
 * payer enters between bounds; each visit makes a checkout. Amounts are numbers, as for payments.
 */
class PaymentLinks {
  constructor(private readonly http: HttpClient) {}
  /**
   * POST /payment_link/create, with an Idempotency-Key (generated once per call unless given): send
   * `amount`, or `amount_min` and `amount_max`. The answer's `url` is the page to share.
   */
  create(body: api.CreatePaymentLinkBody, options?: RequestOptions): Result<api.PaymentLink> {
    return this.http.request('createPaymentLink', { body }, options);
  }
  /** The link with its checkouts by status, what they collected and the uses left. */
  retrieve(id: string, options?: RequestOptions): Result<api.PaymentLink> {
    return this.http.request('getPaymentLink', { params: { id } }, options);
  }
  /** Await it for one page, or `for await` over it for every link (newest first). */
  list(query: api.ListPaymentLinksQuery = {}, options?: RequestOptions): ListRequest<api.PaymentLink, api.PaymentLinkList> {
    return paged(this.http, 'listPaymentLinks', query, undefined, options);
  }
  /**
   * POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
   * payable; an inactive link is answered unchanged.
   */
  deactivate(id: string, options?: RequestOptions): Result<api.PaymentLink> {
    return this.http.request('deactivatePaymentLink', { params: { id }, body: {} }, options);
  }
  /**
   * POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
   * presses Pay (your own page can too; no API key is needed there). Each call is a new visit,
   * holding one of the link's uses while its checkout is open, so it is not retried after a lost
   * answer. The answer carries the checkout's `client_secret` and `url`.
   */
  startCheckout(id: string, body: api.StartPaymentLinkCheckoutBody = {}, options?: RequestOptions): Result<api.Checkout> {
    return this.http.request('startPaymentLinkCheckout', { params: { id }, body }, options);
  }
}

/** Refunds: create (of a payment), retrieve. */
class Refunds {
  constructor(private readonly http: HttpClient) {}
  /** POST /payment/{id}/refund: all that is left of the payment (no amount) or part of it. */
  create(paymentId: string, body: api.RefundPaymentBody = {}, options?: RequestOptions): Result<api.Refund> {
    return this.http.request('refundPayment', { params: { id: paymentId }, body }, options);
  }
  retrieve(id: string, options?: RequestOptions): Result<api.Refund> {
    return this.http.request('getRefund', { params: { id } }, options);
  }
}

class PaymentMethods {
  constructor(private readonly http: HttpClient) {}
  list(query: api.ListPaymentMethodsQuery = {}, options?: RequestOptions): Result<api.PaymentMethodList> {
    return this.http.request('listPaymentMethods', { query }, options);
  }
}

class BalanceResource {
  constructor(private readonly http: HttpClient) {}
  retrieve(query: api.GetBalanceQuery = {}, options?: RequestOptions): Result<api.Balance> {
    return this.http.request('getBalance', { query }, options);
  }
}

class Settlements {
  constructor(private readonly http: HttpClient) {}
  retrieve(id: string, options?: RequestOptions): Result<api.Settlement> {
    return this.http.request('getSettlement', { params: { id } }, options);
  }
  list(query: api.ListSettlementsQuery = {}, options?: RequestOptions): ListRequest<api.Settlement, api.SettlementList> {
    return paged(this.http, 'listSettlements', query, undefined, options);
  }
}

class SettlementExceptions {
  constructor(private readonly http: HttpClient) {}
  retrieve(id: string, options?: RequestOptions): Result<api.SettlementException> {
    return this.http.request('getSettlementException', { params: { id } }, options);
  }
  list(
    query: api.ListSettlementExceptionsQuery = {},
    options?: RequestOptions,
  ): ListRequest<api.SettlementException, api.SettlementExceptionList> {
    return paged(this.http, 'listSettlementExceptions', query, undefined, options);
  }
}

/** The audit log (docs/audit-log.md): who changed what, newest first. */
class AuditLog {
  constructor(private readonly http: HttpClient) {}
  list(query: api.ListAuditLogQuery = {}, options?: RequestOptions): ListRequest<api.AuditEntry, api.AuditEntryList> {
    return paged(this.http, 'listAuditLog', query, undefined, options);
  }
}

type ReconciliationLine = api.ReconciliationLineList['data'][number];

class Reconciliation {
  constructor(private readonly http: HttpClient) {}
  /** POST /reconciliation/create, with an Idempotency-Key. */
  create(body: api.CreateReconciliationBody, options?: RequestOptions): Result<api.Reconciliation> {
    return this.http.request('createReconciliation', { body }, options);
  }
  retrieve(id: string, options?: RequestOptions): Result<api.Reconciliation> {
    return this.http.request('getReconciliation', { params: { id } }, options);
  }
  /** Every line of a reconciliation, paged (`for await` for all of them). */
  lines(
    id: string,
    query: api.ListReconciliationLinesQuery = {},
    options?: RequestOptions,
  ): ListRequest<ReconciliationLine, api.ReconciliationLineList> {
    return paged(this.http, 'listReconciliationLines', query, { id }, options);
  }
  /** The lines as CSV text. */
  exportCsv(id: string, options?: RequestOptions): Promise<string> {
    return this.http.request('exportReconciliationLines', { params: { id } }, options) as Promise<string>;
  }
}

class WebhookEndpoints {
  constructor(private readonly http: HttpClient) {}
  /** The answer carries the signing `secret` (`whsec_…`): the only time it is shown. */
  create(body: api.CreateWebhookEndpointBody, options?: RequestOptions): Result<api.WebhookEndpointWithSecret> {
    return this.http.request('createWebhookEndpoint', { body }, options);
  }
  retrieve(id: string, options?: RequestOptions): Result<api.WebhookEndpoint> {
    return this.http.request('getWebhookEndpoint', { params: { id } }, options);
  }
  /** All endpoints of the key's environment (at most 20: one page). */
  list(options?: RequestOptions): Result<api.ListWebhookEndpointsResponse> {
    return this.http.request('listWebhookEndpoints', {}, options);
  }
  update(id: string, body: api.UpdateWebhookEndpointBody, options?: RequestOptions): Result<api.WebhookEndpoint> {
    return this.http.request('updateWebhookEndpoint', { params: { id }, body }, options);
  }
  delete(id: string, options?: RequestOptions): Result<api.DeleteWebhookEndpointResponse> {
    return this.http.request('deleteWebhookEndpoint', { params: { id } }, options);
  }
  rotateSecret(
    id: string,
    body: api.RotateWebhookEndpointSecretBody = {},
    options?: RequestOptions,
  ): Result<api.WebhookEndpointWithSecret> {
    return this.http.request('rotateWebhookEndpointSecret', { params: { id }, body }, options);
  }
}

class Events {
  constructor(private readonly http: HttpClient) {}
  retrieve(id: string, options?: RequestOptions): Result<api.Event> {
    return this.http.request('getEvent', { params: { id } }, options);
  }
  /** Newest first; `for await` pages through all of them. */
  list(query: api.ListEventsQuery = {}, options?: RequestOptions): ListRequest<api.Event, api.ListEventsResponse> {
    return paged(this.http, 'listEvents', query, undefined, options);
  }
  /** POST /event/{id}/redeliver: send the event again (to every subscriber, one endpoint, or the callback_url). */
  resend(id: string, body: api.RedeliverEventBody = {}, options?: RequestOptions): Result<api.RedeliverEventResponse> {
    return this.http.request('redeliverEvent', { params: { id }, body }, options);
  }
  /** The delivery attempts of one event, oldest first. */
  deliveries(id: string, options?: RequestOptions): Result<api.ListEventDeliveriesResponse> {
    return this.http.request('listEventDeliveries', { params: { id } }, options);
  }
}

class CallbackSecret {
  constructor(private readonly http: HttpClient) {}
  /** The secret that signs callback_url requests; shown on the first read only. */
  retrieve(options?: RequestOptions): Result<api.CallbackSecret> {
    return this.http.request('getCallbackSecret', {}, options);
  }
  rotate(body: api.RotateCallbackSecretBody = {}, options?: RequestOptions): Result<api.CallbackSecret> {
    return this.http.request('rotateCallbackSecret', { body }, options);
  }
}

class Sandbox {
  constructor(private readonly http: HttpClient) {}
  /** Sandbox keys only: make the simulated provider act on a payment (pay, fail, expire, reverse, settle). */
  simulate(paymentId: string, body: api.SimulatePaymentBody, options?: RequestOptions): Result<api.SimulatePaymentResponse> {
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
  readonly webhooks = webhooks;

  constructor(apiKey: string, options: ClientOptions = {}) {
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
