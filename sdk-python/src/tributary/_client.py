"""The two clients: :class:`Tributary` (blocking) and :class:`AsyncTributary` (asyncio)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from . import webhooks as _webhooks
from ._async_resources import (
    AsyncAuditLog,
    AsyncBalanceResource,
    AsyncCallbackSecretResource,
    AsyncCheckouts,
    AsyncEvents,
    AsyncPaymentLinks,
    AsyncPaymentMethods,
    AsyncPayments,
    AsyncReconciliationResource,
    AsyncRefunds,
    AsyncSandbox,
    AsyncSettlementExceptions,
    AsyncSettlements,
    AsyncWebhookEndpoints,
)
from ._base_client import DEFAULT_BASE_URL, DEFAULT_TIMEOUT_SECONDS, AsyncEngine, ClientCore, SyncEngine
from ._http import AsyncHTTPTransport, AsyncTransport, HTTPTransport, SyncTransport
from ._resources import (
    AuditLog,
    BalanceResource,
    CallbackSecretResource,
    Checkouts,
    Events,
    PaymentLinks,
    PaymentMethods,
    Payments,
    ReconciliationResource,
    Refunds,
    Sandbox,
    SettlementExceptions,
    Settlements,
    WebhookEndpoints,
)
from ._retries import DEFAULT_MAX_RETRIES

__all__ = ["AsyncTributary", "Tributary"]


class Tributary:
    """The Tributary API client (blocking; safe to share between threads).

    >>> tributary = Tributary("sk_test_…", base_url="http://127.0.0.1:8080")
    >>> payment = tributary.payments.create(
    ...     {"amount": Decimal("150000.00"), "currency": "IDR", "reference_no": "order-1001"}
    ... )

    ``max_retries`` (default 2) and ``timeout`` (seconds per try, default 60) can also be given per
    call, with ``idempotency_key``. ``transport`` replaces the HTTP layer (``_http.SyncTransport``);
    ``sleep`` how the client waits between tries (tests pass one that records instead).
    """

    #: Webhook verification needs no API key: also importable as ``tributary.webhooks``.
    webhooks = _webhooks

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        api_version: str | None = None,
        transport: SyncTransport | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        core = ClientCore(
            api_key, base_url=base_url, max_retries=max_retries, timeout=timeout, api_version=api_version
        )
        self._engine = SyncEngine(
            core,
            HTTPTransport() if transport is None else transport,
            time.sleep if sleep is None else sleep,
        )
        self.payments = Payments(self._engine)
        self.refunds = Refunds(self._engine)
        self.checkouts = Checkouts(self._engine)
        self.payment_links = PaymentLinks(self._engine)
        self.payment_methods = PaymentMethods(self._engine)
        self.balance = BalanceResource(self._engine)
        self.settlements = Settlements(self._engine)
        self.settlement_exceptions = SettlementExceptions(self._engine)
        self.reconciliation = ReconciliationResource(self._engine)
        self.webhook_endpoints = WebhookEndpoints(self._engine)
        self.events = Events(self._engine)
        self.callback_secret = CallbackSecretResource(self._engine)
        self.audit_log = AuditLog(self._engine)
        self.sandbox = Sandbox(self._engine)

    def __repr__(self) -> str:
        return f"Tributary(base_url={self._engine.core.base_url!r})"  # never the key


class AsyncTributary:
    """The Tributary API client for asyncio: the same resources, every call awaited.

    >>> tributary = AsyncTributary("sk_test_…")
    >>> payment = await tributary.payments.create(
    ...     {"amount": Decimal("150000.00"), "currency": "IDR", "reference_no": "order-1001"}
    ... )
    >>> async for p in tributary.payments.list({"status": "pending"}):
    ...     print(p["id"])
    """

    webhooks = _webhooks

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        max_retries: int = DEFAULT_MAX_RETRIES,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        api_version: str | None = None,
        transport: AsyncTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        core = ClientCore(
            api_key, base_url=base_url, max_retries=max_retries, timeout=timeout, api_version=api_version
        )
        self._engine = AsyncEngine(
            core,
            AsyncHTTPTransport() if transport is None else transport,
            asyncio.sleep if sleep is None else sleep,
        )
        self.payments = AsyncPayments(self._engine)
        self.refunds = AsyncRefunds(self._engine)
        self.checkouts = AsyncCheckouts(self._engine)
        self.payment_links = AsyncPaymentLinks(self._engine)
        self.payment_methods = AsyncPaymentMethods(self._engine)
        self.balance = AsyncBalanceResource(self._engine)
        self.settlements = AsyncSettlements(self._engine)
        self.settlement_exceptions = AsyncSettlementExceptions(self._engine)
        self.reconciliation = AsyncReconciliationResource(self._engine)
        self.webhook_endpoints = AsyncWebhookEndpoints(self._engine)
        self.events = AsyncEvents(self._engine)
        self.callback_secret = AsyncCallbackSecretResource(self._engine)
        self.audit_log = AsyncAuditLog(self._engine)
        self.sandbox = AsyncSandbox(self._engine)

    def __repr__(self) -> str:
        return f"AsyncTributary(base_url={self._engine.core.base_url!r})"  # never the key
