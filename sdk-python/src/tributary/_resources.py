"""The resources of the API as methods, for the synchronous client.

Each method names an operation of the generated table (``_generated.py``): paths, methods,
Idempotency-Key use and every type come from the OpenAPI document; only the method names are
chosen here, the Node SDK's in snake_case. ``_async_resources.py`` mirrors this file line by line.
"""

from __future__ import annotations

from typing import Any, Unpack

from ._base_client import RequestOptions, SyncEngine
from ._generated import (
    AuditEntry,
    Balance,
    CallbackSecret,
    CancelPaymentBody,
    Checkout,
    CreateCheckoutBody,
    CreatePaymentBody,
    CreatePaymentLinkBody,
    CreateReconciliationBody,
    CreateWebhookEndpointBody,
    DeleteWebhookEndpointResponse,
    Event,
    GetBalanceQuery,
    ListAuditLogQuery,
    ListCheckoutsQuery,
    ListEventDeliveriesResponse,
    ListEventsQuery,
    ListPaymentLinksQuery,
    ListPaymentMethodsQuery,
    ListPaymentsQuery,
    ListReconciliationLinesQuery,
    ListSettlementExceptionsQuery,
    ListSettlementsQuery,
    ListWebhookEndpointsResponse,
    Payment,
    PaymentLink,
    PaymentMethodList,
    Reconciliation,
    ReconciliationLine,
    RedeliverEventBody,
    RedeliverEventResponse,
    Refund,
    RefundPaymentBody,
    RotateCallbackSecretBody,
    RotateWebhookEndpointSecretBody,
    SelectCheckoutMethodBody,
    Settlement,
    SettlementException,
    SimulatePaymentBody,
    SimulatePaymentResponse,
    StartPaymentLinkCheckoutBody,
    UpdateWebhookEndpointBody,
    WebhookEndpoint,
    WebhookEndpointWithSecret,
)
from .pagination import ListPage


def _paged(
    engine: SyncEngine,
    operation_id: str,
    query: Any,
    params: dict[str, str] | None,
    options: RequestOptions,
) -> ListPage[Any]:
    base = {k: v for k, v in dict(query or {}).items() if k != "starting_after"}
    start = (query or {}).get("starting_after")

    def fetch(cursor: str | None) -> ListPage[Any]:
        page_query = base if cursor is None else {**base, "starting_after": cursor}
        raw = engine.request(operation_id, params=params, query=page_query, options=options)
        return ListPage(raw, fetch)

    return fetch(start)


class _Resource:
    def __init__(self, engine: SyncEngine) -> None:
        self._engine = engine


class Payments(_Resource):
    """Payments: create, retrieve, list (auto-paginating), cancel."""

    def create(self, body: CreatePaymentBody, **options: Unpack[RequestOptions]) -> Payment:
        """POST /payment/create, with an Idempotency-Key (generated once per call unless given)."""
        result: Payment = self._engine.request("createPayment", body=body, options=options)
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Payment:
        result: Payment = self._engine.request("getPayment", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListPaymentsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[Payment]:
        """The first page (newest first); iterate it for every payment of every page."""
        return _paged(self._engine, "listPayments", query, None, options)

    def cancel(
        self, id: str, body: CancelPaymentBody | None = None, **options: Unpack[RequestOptions]
    ) -> Payment:
        """POST /payment/{id}/cancel, with an Idempotency-Key."""
        result: Payment = self._engine.request(
            "cancelPayment", params={"id": id}, body=body or {}, options=options
        )
        return result

    def erase_payer_data(self, id: str, **options: Unpack[RequestOptions]) -> Payment:
        """POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment
        (docs/payer-data.md). Erasing again answers the erased payment unchanged."""
        result: Payment = self._engine.request(
            "erasePayerData", params={"id": id}, body={}, options=options
        )
        return result


class Checkouts(_Resource):
    """Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select
    (the payer's choice of how to pay, authorised by the checkout's ``client_secret``)."""

    def create(self, body: CreateCheckoutBody, **options: Unpack[RequestOptions]) -> Checkout:
        """POST /checkout/create, with an Idempotency-Key (generated once per call unless given).

        The amount is a Decimal, checked against the currency as for payments. The answer is the
        only one that carries the ``client_secret``.
        """
        result: Checkout = self._engine.request("createCheckout", body=body, options=options)
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Checkout:
        result: Checkout = self._engine.request("getCheckout", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListCheckoutsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[Checkout]:
        """The first page (newest first); iterate it for every checkout of every page."""
        return _paged(self._engine, "listCheckouts", query, None, options)

    def expire(self, id: str, **options: Unpack[RequestOptions]) -> Checkout:
        """POST /checkout/{id}/expire: ends an open checkout now and cancels its pending payment."""
        result: Checkout = self._engine.request("expireCheckout", params={"id": id}, body={}, options=options)
        return result

    def select(self, id: str, body: SelectCheckoutMethodBody, **options: Unpack[RequestOptions]) -> Checkout:
        """POST /checkout/{id}/select: makes the payment for the chosen channel and answers the
        checkout with ``payment`` expanded (a Payment, with its ``instructions``).

        Authorised by ``client_secret`` in the body, not by the API key. Retried as the keyed
        operations are; the server does not store the key here, so a retry after a lost answer is
        a new selection, which cancels the payment the lost one made first.
        """
        result: Checkout = self._engine.request(
            "selectCheckoutMethod", params={"id": id}, body=body, options=options
        )
        return result


class PaymentLinks(_Resource):
    """Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount, or
    one the payer enters between bounds; each visit makes a checkout. Create, retrieve, list
    (auto-paginating), deactivate, and start_checkout (a visit)."""

    def create(self, body: CreatePaymentLinkBody, **options: Unpack[RequestOptions]) -> PaymentLink:
        """POST /payment_link/create, with an Idempotency-Key (generated once per call unless given).

        Send ``amount``, or ``amount_min`` and ``amount_max``: Decimals checked against the currency
        as for payments. The answer's ``url`` is the page to share.
        """
        result: PaymentLink = self._engine.request("createPaymentLink", body=body, options=options)
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> PaymentLink:
        """The link with its checkouts by status, what they collected and the uses left."""
        result: PaymentLink = self._engine.request("getPaymentLink", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListPaymentLinksQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[PaymentLink]:
        """The first page (newest first); iterate it for every link of every page."""
        return _paged(self._engine, "listPaymentLinks", query, None, options)

    def deactivate(self, id: str, **options: Unpack[RequestOptions]) -> PaymentLink:
        """POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
        payable; an inactive link is answered unchanged."""
        result: PaymentLink = self._engine.request(
            "deactivatePaymentLink", params={"id": id}, body={}, options=options
        )
        return result

    def start_checkout(
        self, id: str, body: StartPaymentLinkCheckoutBody | None = None, **options: Unpack[RequestOptions]
    ) -> Checkout:
        """POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
        presses Pay (no API key is needed there); ``amount`` only for a link whose payer enters it.

        Each call is a new visit holding one of the link's uses while its checkout is open, so a
        lost answer is not retried. The answer carries the checkout's ``client_secret``.
        """
        result: Checkout = self._engine.request(
            "startPaymentLinkCheckout", params={"id": id}, body=body or {}, options=options
        )
        return result


class Refunds(_Resource):
    """Refunds: create (of a payment), retrieve."""

    def create(
        self, payment_id: str, body: RefundPaymentBody | None = None, **options: Unpack[RequestOptions]
    ) -> Refund:
        """POST /payment/{id}/refund: all that is left of the payment (no amount) or part of it.

        The body names no currency, so the server checks the amount's digits against the
        payment's (``amount_too_precise``, an :class:`InvalidRequestError` as well).
        """
        result: Refund = self._engine.request(
            "refundPayment", params={"id": payment_id}, body=body or {}, options=options
        )
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Refund:
        result: Refund = self._engine.request("getRefund", params={"id": id}, options=options)
        return result


class PaymentMethods(_Resource):
    def list(
        self, query: ListPaymentMethodsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> PaymentMethodList:
        """What can be offered, optionally for an ``amount`` (Decimal) and ``currency``."""
        result: PaymentMethodList = self._engine.request("listPaymentMethods", query=query, options=options)
        return result


class BalanceResource(_Resource):
    def retrieve(self, query: GetBalanceQuery | None = None, **options: Unpack[RequestOptions]) -> Balance:
        """Balances per currency; ``{"verify": True}`` re-checks the ledger."""
        result: Balance = self._engine.request("getBalance", query=query, options=options)
        return result


class Settlements(_Resource):
    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Settlement:
        result: Settlement = self._engine.request("getSettlement", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListSettlementsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[Settlement]:
        return _paged(self._engine, "listSettlements", query, None, options)


class SettlementExceptions(_Resource):
    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> SettlementException:
        result: SettlementException = self._engine.request(
            "getSettlementException", params={"id": id}, options=options
        )
        return result

    def list(
        self, query: ListSettlementExceptionsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[SettlementException]:
        return _paged(self._engine, "listSettlementExceptions", query, None, options)


class AuditLog(_Resource):
    """The audit log (docs/audit-log.md): who changed what, newest first."""

    def list(
        self, query: ListAuditLogQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[AuditEntry]:
        return _paged(self._engine, "listAuditLog", query, None, options)


class ReconciliationResource(_Resource):
    def create(self, body: CreateReconciliationBody, **options: Unpack[RequestOptions]) -> Reconciliation:
        """POST /reconciliation/create, with an Idempotency-Key."""
        result: Reconciliation = self._engine.request("createReconciliation", body=body, options=options)
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Reconciliation:
        result: Reconciliation = self._engine.request("getReconciliation", params={"id": id}, options=options)
        return result

    def lines(
        self, id: str, query: ListReconciliationLinesQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[ReconciliationLine]:
        """The first page of lines; iterate it for every line."""
        return _paged(self._engine, "listReconciliationLines", query, {"id": id}, options)

    def export_csv(self, id: str, **options: Unpack[RequestOptions]) -> str:
        """Every line as CSV text."""
        result: str = self._engine.request("exportReconciliationLines", params={"id": id}, options=options)
        return result


class WebhookEndpoints(_Resource):
    def create(
        self, body: CreateWebhookEndpointBody, **options: Unpack[RequestOptions]
    ) -> WebhookEndpointWithSecret:
        """The answer carries the signing ``secret`` (``whsec_…``): the only time it is shown."""
        result: WebhookEndpointWithSecret = self._engine.request(
            "createWebhookEndpoint", body=body, options=options
        )
        return result

    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> WebhookEndpoint:
        result: WebhookEndpoint = self._engine.request(
            "getWebhookEndpoint", params={"id": id}, options=options
        )
        return result

    def list(self, **options: Unpack[RequestOptions]) -> ListWebhookEndpointsResponse:
        """Every endpoint of the key's environment (at most 20: one page)."""
        result: ListWebhookEndpointsResponse = self._engine.request("listWebhookEndpoints", options=options)
        return result

    def update(
        self, id: str, body: UpdateWebhookEndpointBody, **options: Unpack[RequestOptions]
    ) -> WebhookEndpoint:
        result: WebhookEndpoint = self._engine.request(
            "updateWebhookEndpoint", params={"id": id}, body=body, options=options
        )
        return result

    def delete(self, id: str, **options: Unpack[RequestOptions]) -> DeleteWebhookEndpointResponse:
        result: DeleteWebhookEndpointResponse = self._engine.request(
            "deleteWebhookEndpoint", params={"id": id}, options=options
        )
        return result

    def rotate_secret(
        self, id: str, body: RotateWebhookEndpointSecretBody | None = None, **options: Unpack[RequestOptions]
    ) -> WebhookEndpointWithSecret:
        result: WebhookEndpointWithSecret = self._engine.request(
            "rotateWebhookEndpointSecret", params={"id": id}, body=body or {}, options=options
        )
        return result


class Events(_Resource):
    def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Event:
        result: Event = self._engine.request("getEvent", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListEventsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> ListPage[Event]:
        """Newest first; iterate for every event of every page."""
        return _paged(self._engine, "listEvents", query, None, options)

    def resend(
        self, id: str, body: RedeliverEventBody | None = None, **options: Unpack[RequestOptions]
    ) -> RedeliverEventResponse:
        """POST /event/{id}/redeliver: to every subscriber, one endpoint, or the callback_url."""
        result: RedeliverEventResponse = self._engine.request(
            "redeliverEvent", params={"id": id}, body=body or {}, options=options
        )
        return result

    def deliveries(self, id: str, **options: Unpack[RequestOptions]) -> ListEventDeliveriesResponse:
        """The delivery attempts of one event, oldest first."""
        result: ListEventDeliveriesResponse = self._engine.request(
            "listEventDeliveries", params={"id": id}, options=options
        )
        return result


class CallbackSecretResource(_Resource):
    def retrieve(self, **options: Unpack[RequestOptions]) -> CallbackSecret:
        """The secret that signs callback_url requests; shown on the first read only."""
        result: CallbackSecret = self._engine.request("getCallbackSecret", options=options)
        return result

    def rotate(
        self, body: RotateCallbackSecretBody | None = None, **options: Unpack[RequestOptions]
    ) -> CallbackSecret:
        result: CallbackSecret = self._engine.request(
            "rotateCallbackSecret", body=body or {}, options=options
        )
        return result


class Sandbox(_Resource):
    def simulate(
        self, payment_id: str, body: SimulatePaymentBody, **options: Unpack[RequestOptions]
    ) -> SimulatePaymentResponse:
        """Sandbox keys only: the simulated provider pays, fails, expires, reverses or settles."""
        result: SimulatePaymentResponse = self._engine.request(
            "simulatePayment", params={"id": payment_id}, body=body, options=options
        )
        return result
