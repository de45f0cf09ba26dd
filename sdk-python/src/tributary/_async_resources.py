"""The resources of the API as methods, for the asynchronous client: ``_resources.py`` line by line,
with ``async def`` and ``await``."""

from __future__ import annotations

from typing import Any, Unpack

from ._base_client import AsyncEngine, RequestOptions
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
from .pagination import AsyncListPage, AsyncListRequest


def _paged(
    engine: AsyncEngine,
    operation_id: str,
    query: Any,
    params: dict[str, str] | None,
    options: RequestOptions,
) -> AsyncListRequest[Any]:
    base = {k: v for k, v in dict(query or {}).items() if k != "starting_after"}
    start = (query or {}).get("starting_after")

    async def fetch(cursor: str | None) -> AsyncListPage[Any]:
        page_query = base if cursor is None else {**base, "starting_after": cursor}
        raw = await engine.request(operation_id, params=params, query=page_query, options=options)
        return AsyncListPage(raw, fetch)

    async def first(_: str | None) -> AsyncListPage[Any]:
        return await fetch(start)

    return AsyncListRequest(first)


class _AsyncResource:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine


class AsyncPayments(_AsyncResource):
    """Payments: create, retrieve, list (auto-paginating), cancel."""

    async def create(self, body: CreatePaymentBody, **options: Unpack[RequestOptions]) -> Payment:
        """POST /payment/create, with an Idempotency-Key (generated once per call unless given)."""
        result: Payment = await self._engine.request("createPayment", body=body, options=options)
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Payment:
        result: Payment = await self._engine.request("getPayment", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListPaymentsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[Payment]:
        """``await`` it for the first page (newest first), ``async for`` over it for every payment."""
        return _paged(self._engine, "listPayments", query, None, options)

    async def cancel(
        self, id: str, body: CancelPaymentBody | None = None, **options: Unpack[RequestOptions]
    ) -> Payment:
        """POST /payment/{id}/cancel, with an Idempotency-Key."""
        result: Payment = await self._engine.request(
            "cancelPayment", params={"id": id}, body=body or {}, options=options
        )
        return result

    async def erase_payer_data(self, id: str, **options: Unpack[RequestOptions]) -> Payment:
        """POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment
        (docs/payer-data.md). Erasing again answers the erased payment unchanged."""
        result: Payment = await self._engine.request(
            "erasePayerData", params={"id": id}, body={}, options=options
        )
        return result


class AsyncCheckouts(_AsyncResource):
    """Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select
    (the payer's choice of how to pay, authorised by the checkout's ``client_secret``)."""

    async def create(self, body: CreateCheckoutBody, **options: Unpack[RequestOptions]) -> Checkout:
        """POST /checkout/create, with an Idempotency-Key (generated once per call unless given).

        The amount is a Decimal, checked against the currency as for payments. The answer is the
        only one that carries the ``client_secret``.
        """
        result: Checkout = await self._engine.request("createCheckout", body=body, options=options)
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Checkout:
        result: Checkout = await self._engine.request("getCheckout", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListCheckoutsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[Checkout]:
        """``await`` it for the first page (newest first), ``async for`` over it for every checkout."""
        return _paged(self._engine, "listCheckouts", query, None, options)

    async def expire(self, id: str, **options: Unpack[RequestOptions]) -> Checkout:
        """POST /checkout/{id}/expire: ends an open checkout now and cancels its pending payment."""
        result: Checkout = await self._engine.request(
            "expireCheckout", params={"id": id}, body={}, options=options
        )
        return result

    async def select(
        self, id: str, body: SelectCheckoutMethodBody, **options: Unpack[RequestOptions]
    ) -> Checkout:
        """POST /checkout/{id}/select: makes the payment for the chosen channel and answers the
        checkout with ``payment`` expanded (a Payment, with its ``instructions``).

        Authorised by ``client_secret`` in the body, not by the API key. Retried as the keyed
        operations are; the server does not store the key here, so a retry after a lost answer is
        a new selection, which cancels the payment the lost one made first.
        """
        result: Checkout = await self._engine.request(
            "selectCheckoutMethod", params={"id": id}, body=body, options=options
        )
        return result


class AsyncPaymentLinks(_AsyncResource):
    """Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount, or
    one the payer enters between bounds; each visit makes a checkout. Create, retrieve, list
    (auto-paginating), deactivate, and start_checkout (a visit)."""

    async def create(self, body: CreatePaymentLinkBody, **options: Unpack[RequestOptions]) -> PaymentLink:
        """POST /payment_link/create, with an Idempotency-Key (generated once per call unless given).

        Send ``amount``, or ``amount_min`` and ``amount_max``: Decimals checked against the currency
        as for payments. The answer's ``url`` is the page to share.
        """
        result: PaymentLink = await self._engine.request("createPaymentLink", body=body, options=options)
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> PaymentLink:
        """The link with its checkouts by status, what they collected and the uses left."""
        result: PaymentLink = await self._engine.request("getPaymentLink", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListPaymentLinksQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[PaymentLink]:
        """``await`` it for the first page (newest first), ``async for`` over it for every link."""
        return _paged(self._engine, "listPaymentLinks", query, None, options)

    async def deactivate(self, id: str, **options: Unpack[RequestOptions]) -> PaymentLink:
        """POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
        payable; an inactive link is answered unchanged."""
        result: PaymentLink = await self._engine.request(
            "deactivatePaymentLink", params={"id": id}, body={}, options=options
        )
        return result

    async def start_checkout(
        self, id: str, body: StartPaymentLinkCheckoutBody | None = None, **options: Unpack[RequestOptions]
    ) -> Checkout:
        """POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
        presses Pay (no API key is needed there); ``amount`` only for a link whose payer enters it.

        Each call is a new visit holding one of the link's uses while its checkout is open, so a
        lost answer is not retried. The answer carries the checkout's ``client_secret``.
        """
        result: Checkout = await self._engine.request(
            "startPaymentLinkCheckout", params={"id": id}, body=body or {}, options=options
        )
        return result


class AsyncRefunds(_AsyncResource):
    """Refunds: create (of a payment), retrieve."""

    async def create(
        self, payment_id: str, body: RefundPaymentBody | None = None, **options: Unpack[RequestOptions]
    ) -> Refund:
        """POST /payment/{id}/refund: all that is left of the payment (no amount) or part of it.

        The body names no currency, so the server checks the amount's digits against the
        payment's (``amount_too_precise``, an :class:`InvalidRequestError` as well).
        """
        result: Refund = await self._engine.request(
            "refundPayment", params={"id": payment_id}, body=body or {}, options=options
        )
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Refund:
        result: Refund = await self._engine.request("getRefund", params={"id": id}, options=options)
        return result


class AsyncPaymentMethods(_AsyncResource):
    async def list(
        self, query: ListPaymentMethodsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> PaymentMethodList:
        """What can be offered, optionally for an ``amount`` (Decimal) and ``currency``."""
        result: PaymentMethodList = await self._engine.request(
            "listPaymentMethods", query=query, options=options
        )
        return result


class AsyncBalanceResource(_AsyncResource):
    async def retrieve(
        self, query: GetBalanceQuery | None = None, **options: Unpack[RequestOptions]
    ) -> Balance:
        """Balances per currency; ``{"verify": True}`` re-checks the ledger."""
        result: Balance = await self._engine.request("getBalance", query=query, options=options)
        return result


class AsyncSettlements(_AsyncResource):
    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Settlement:
        result: Settlement = await self._engine.request("getSettlement", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListSettlementsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[Settlement]:
        return _paged(self._engine, "listSettlements", query, None, options)


class AsyncSettlementExceptions(_AsyncResource):
    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> SettlementException:
        result: SettlementException = await self._engine.request(
            "getSettlementException", params={"id": id}, options=options
        )
        return result

    def list(
        self, query: ListSettlementExceptionsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[SettlementException]:
        return _paged(self._engine, "listSettlementExceptions", query, None, options)


class AsyncAuditLog(_AsyncResource):
    """The audit log (docs/audit-log.md): who changed what, newest first."""

    def list(
        self, query: ListAuditLogQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[AuditEntry]:
        return _paged(self._engine, "listAuditLog", query, None, options)


class AsyncReconciliationResource(_AsyncResource):
    async def create(
        self, body: CreateReconciliationBody, **options: Unpack[RequestOptions]
    ) -> Reconciliation:
        """POST /reconciliation/create, with an Idempotency-Key."""
        result: Reconciliation = await self._engine.request(
            "createReconciliation", body=body, options=options
        )
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Reconciliation:
        result: Reconciliation = await self._engine.request(
            "getReconciliation", params={"id": id}, options=options
        )
        return result

    def lines(
        self, id: str, query: ListReconciliationLinesQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[ReconciliationLine]:
        """``await`` it for the first page of lines, ``async for`` over it for every line."""
        return _paged(self._engine, "listReconciliationLines", query, {"id": id}, options)

    async def export_csv(self, id: str, **options: Unpack[RequestOptions]) -> str:
        """Every line as CSV text."""
        result: str = await self._engine.request(
            "exportReconciliationLines", params={"id": id}, options=options
        )
        return result


class AsyncWebhookEndpoints(_AsyncResource):
    async def create(
        self, body: CreateWebhookEndpointBody, **options: Unpack[RequestOptions]
    ) -> WebhookEndpointWithSecret:
        """The answer carries the signing ``secret`` (``whsec_…``): the only time it is shown."""
        result: WebhookEndpointWithSecret = await self._engine.request(
            "createWebhookEndpoint", body=body, options=options
        )
        return result

    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> WebhookEndpoint:
        result: WebhookEndpoint = await self._engine.request(
            "getWebhookEndpoint", params={"id": id}, options=options
        )
        return result

    async def list(self, **options: Unpack[RequestOptions]) -> ListWebhookEndpointsResponse:
        """Every endpoint of the key's environment (at most 20: one page)."""
        result: ListWebhookEndpointsResponse = await self._engine.request(
            "listWebhookEndpoints", options=options
        )
        return result

    async def update(
        self, id: str, body: UpdateWebhookEndpointBody, **options: Unpack[RequestOptions]
    ) -> WebhookEndpoint:
        result: WebhookEndpoint = await self._engine.request(
            "updateWebhookEndpoint", params={"id": id}, body=body, options=options
        )
        return result

    async def delete(self, id: str, **options: Unpack[RequestOptions]) -> DeleteWebhookEndpointResponse:
        result: DeleteWebhookEndpointResponse = await self._engine.request(
            "deleteWebhookEndpoint", params={"id": id}, options=options
        )
        return result

    async def rotate_secret(
        self, id: str, body: RotateWebhookEndpointSecretBody | None = None, **options: Unpack[RequestOptions]
    ) -> WebhookEndpointWithSecret:
        result: WebhookEndpointWithSecret = await self._engine.request(
            "rotateWebhookEndpointSecret", params={"id": id}, body=body or {}, options=options
        )
        return result


class AsyncEvents(_AsyncResource):
    async def retrieve(self, id: str, **options: Unpack[RequestOptions]) -> Event:
        result: Event = await self._engine.request("getEvent", params={"id": id}, options=options)
        return result

    def list(
        self, query: ListEventsQuery | None = None, **options: Unpack[RequestOptions]
    ) -> AsyncListRequest[Event]:
        """Newest first; ``async for`` over it for every event of every page."""
        return _paged(self._engine, "listEvents", query, None, options)

    async def resend(
        self, id: str, body: RedeliverEventBody | None = None, **options: Unpack[RequestOptions]
    ) -> RedeliverEventResponse:
        """POST /event/{id}/redeliver: to every subscriber, one endpoint, or the callback_url."""
        result: RedeliverEventResponse = await self._engine.request(
            "redeliverEvent", params={"id": id}, body=body or {}, options=options
        )
        return result

    async def deliveries(self, id: str, **options: Unpack[RequestOptions]) -> ListEventDeliveriesResponse:
        """The delivery attempts of one event, oldest first."""
        result: ListEventDeliveriesResponse = await self._engine.request(
            "listEventDeliveries", params={"id": id}, options=options
        )
        return result


class AsyncCallbackSecretResource(_AsyncResource):
    async def retrieve(self, **options: Unpack[RequestOptions]) -> CallbackSecret:
        """The secret that signs callback_url requests; shown on the first read only."""
        result: CallbackSecret = await self._engine.request("getCallbackSecret", options=options)
        return result

    async def rotate(
        self, body: RotateCallbackSecretBody | None = None, **options: Unpack[RequestOptions]
    ) -> CallbackSecret:
        result: CallbackSecret = await self._engine.request(
            "rotateCallbackSecret", body=body or {}, options=options
        )
        return result


class AsyncSandbox(_AsyncResource):
    async def simulate(
        self, payment_id: str, body: SimulatePaymentBody, **options: Unpack[RequestOptions]
    ) -> SimulatePaymentResponse:
        """Sandbox keys only: the simulated provider pays, fails, expires, reverses or settles."""
        result: SimulatePaymentResponse = await self._engine.request(
            "simulatePayment", params={"id": payment_id}, body=body, options=options
        )
        return result
