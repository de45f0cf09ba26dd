"""The one place requests are made, for the synchronous and the asynchronous client alike.

Each call:

- builds method, path and Idempotency-Key use from the generated OPERATIONS table (and
  ``KEYED_BY_THE_SDK``);
- checks and writes amounts as exact decimals (``amounts.py``);
- generates an Idempotency-Key once per logical call (unless given) and sends the same key on every
  retry, so a retry after a lost answer returns the first result instead of doing the work twice
  (docs/idempotency.md);
- retries as ``_retries.py`` says, with jittered exponential backoff and never before
  ``Retry-After``.

Only the sending and the waiting differ between the two engines; everything else is here, once.
"""

from __future__ import annotations

import logging
import platform
import random as _random
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, TypedDict
from urllib.parse import quote, urlencode

from . import amounts
from ._generated import DECIMAL_FIELDS, OPERATIONS, Operation
from ._http import AsyncTransport, HttpRequest, HttpResponse, SyncTransport, TransportError
from ._retries import CallKind, check_max_retries, retry_delay
from ._version import VERSION
from .errors import APIConnectionError, APIError, APITimeoutError, TributaryError, error_from_response

log = logging.getLogger("tributary")

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT_SECONDS = 60.0
IDEMPOTENCY_KEY_PREFIX = "tributary-python-"
#: Operations the document gives no Idempotency-Key but this SDK sends one for and retries as keyed:
#: POST /checkout/{id}/select makes a payment, and the server never collects twice for one checkout
#: (a new selection cancels the previous pending payment; one live payment per reference), so a
#: retry after a lost answer is safe. The server ignores the key there: a retry is a new selection,
#: not a replay (docs/checkout.md).
KEYED_BY_THE_SDK = frozenset({"selectCheckoutMethod"})


class RequestOptions(TypedDict, total=False):
    """Per-call settings, as keyword arguments of every method."""

    #: For operations that take one (create, cancel, refund, reconciliation, checkout create and
    #: select): the key of this logical call. Default: a new random key per call, reused by every
    #: retry of that call. Pass your own (e.g. derived from your order id) to make a retry safe
    #: across restarts too.
    idempotency_key: str
    max_retries: int
    #: Deadline of one try, in seconds.
    timeout: float


@dataclass(frozen=True)
class ResponseMeta:
    """What the SDK knows about the HTTP answer behind a returned object."""

    status_code: int
    request_id: str | None
    #: The Idempotency-Key sent, if the operation takes one.
    idempotency_key: str | None
    #: True when the server replayed a finished request with this key (``Idempotent-Replayed``).
    replayed: bool
    #: How many tries the call took (1 without retries).
    attempts: int


class ApiObject(dict[str, Any]):
    """The runtime type of every object a method returns: a plain ``dict`` (typed by a TypedDict)
    that also remembers the answer it came in (:func:`last_response`)."""

    last_response: ResponseMeta | None = None


def last_response(obj: Mapping[str, Any]) -> ResponseMeta | None:
    """Status, request id, Idempotency-Key, replay and tries of the answer ``obj`` came in."""
    return obj.last_response if isinstance(obj, ApiObject) else None


@dataclass(frozen=True)
class PreparedCall:
    operation_id: str
    operation: Operation
    request: HttpRequest
    idempotency_key: str | None
    kind: CallKind
    max_retries: int


class ClientCore:
    """Configuration, request building and answer reading: no I/O."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str,
        max_retries: int,
        timeout: float,
        api_version: str | None,
    ) -> None:
        if not isinstance(api_key, str) or api_key.strip() == "":
            raise ValueError("Tributary: an API key (sk_test_… or sk_live_…) is required")
        self._api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = check_max_retries(max_retries)
        self.timeout = _check_timeout(timeout)
        self.api_version = api_version
        self.random: Callable[[], float] = _random.random
        self._user_agent = f"tributary-python/{VERSION} (Python {platform.python_version()})"

    def __repr__(self) -> str:
        # Never the key.
        return f"ClientCore(base_url={self.base_url!r})"

    def prepare(
        self,
        operation_id: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        options: RequestOptions,
    ) -> PreparedCall:
        op = OPERATIONS[operation_id]
        url = self.base_url + _path(op, params or {}) + _query_string(query or {})
        keyed = op.idempotency_key or operation_id in KEYED_BY_THE_SDK
        idempotency_key: str | None = None
        if keyed:
            idempotency_key = options.get("idempotency_key") or f"{IDEMPOTENCY_KEY_PREFIX}{uuid.uuid4()}"
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json" if op.response == "json" else "*/*",
            "User-Agent": self._user_agent,
        }
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        if self.api_version is not None:
            headers["Api-Version"] = self.api_version
        data: bytes | None = None
        if op.body:
            headers["Content-Type"] = "application/json"
            data = amounts.dumps(_checked_body(body or {})).encode("utf-8")
        elif body is not None:
            raise TypeError(f"Tributary: {operation_id} takes no body")
        timeout = _check_timeout(options.get("timeout", self.timeout))
        return PreparedCall(
            operation_id=operation_id,
            operation=op,
            request=HttpRequest(op.method, url, headers, data, timeout),
            idempotency_key=idempotency_key,
            # Whether a retry can never do the work twice: reads, and operations deduped by key.
            kind=CallKind(safe=op.method == "GET" or keyed, keyed=keyed),
            max_retries=check_max_retries(options.get("max_retries", self.max_retries)),
        )

    def read(self, call: PreparedCall, response: HttpResponse, attempt: int) -> Any:
        """The result of a 2xx answer, or the error to raise (or retry on)."""
        status, headers = response.status, response.headers
        is_json = "json" in headers.get("content-type", "")
        if not 200 <= status < 300:
            body: object = None
            if is_json and response.body:
                try:
                    body = amounts.loads(response.body)
                except ValueError:
                    body = None
            return error_from_response(status, body, headers, call.idempotency_key)
        if call.operation.response == "text":
            return response.body.decode("utf-8")
        try:
            parsed = amounts.loads(response.body) if response.body else None
        except ValueError as e:
            error = APIError(
                "Tributary answered with invalid JSON.",
                code="invalid_response",
                http_status=status,
                request_id=headers.get("request-id"),
                headers=headers,
                idempotency_key=call.idempotency_key,
            )
            error.__cause__ = e
            return error
        if not isinstance(parsed, dict):
            return parsed
        result = ApiObject(parsed)
        result.last_response = ResponseMeta(
            status_code=status,
            request_id=headers.get("request-id"),
            idempotency_key=call.idempotency_key,
            replayed=headers.get("idempotent-replayed") == "true",
            attempts=attempt,
        )
        return result

    def connection_error(self, call: PreparedCall, error: TransportError) -> TributaryError:
        request = call.request
        where = f"{request.method} {request.url.split('?', 1)[0].removeprefix(self.base_url)}"
        result: TributaryError
        if error.kind == "timeout":
            result = APITimeoutError(
                f"No answer from Tributary within {request.timeout} s ({where}).",
                code="timeout",
                idempotency_key=call.idempotency_key,
            )
        else:
            result = APIConnectionError(
                f"Could not reach Tributary or the connection was lost ({where}): {error}",
                code="connection_error",
                idempotency_key=call.idempotency_key,
            )
        result.__cause__ = error
        return result

    def delay(self, call: PreparedCall, error: TributaryError, attempt: int, refused: bool) -> float | None:
        wait = retry_delay(
            error,
            attempt=attempt,
            max_retries=call.max_retries,
            kind=call.kind,
            refused=refused,
            random=self.random,
        )
        if wait is not None:
            log.debug(
                "tributary: %s try %d failed (%s); retrying in %.2f s",
                call.operation_id,
                attempt,
                error.code,
                wait,
            )
        return wait


class SyncEngine:
    def __init__(self, core: ClientCore, transport: SyncTransport, sleep: Callable[[float], None]) -> None:
        self.core = core
        self.transport = transport
        self.sleep = sleep

    def request(
        self,
        operation_id: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        options: RequestOptions,
    ) -> Any:
        call = self.core.prepare(operation_id, params=params, query=query, body=body, options=options)
        attempt = 1
        while True:
            refused = False
            try:
                response = self.transport.send(call.request)
            except TransportError as e:
                error = self.core.connection_error(call, e)
                refused = e.kind == "refused"
            else:
                result = self.core.read(call, response, attempt)
                if not isinstance(result, TributaryError):
                    return result
                error = result
            wait = self.core.delay(call, error, attempt, refused)
            if wait is None:
                raise error
            self.sleep(wait)
            attempt += 1


class AsyncEngine:
    def __init__(
        self,
        core: ClientCore,
        transport: AsyncTransport,
        sleep: Callable[[float], Awaitable[None]],
    ) -> None:
        self.core = core
        self.transport = transport
        self.sleep = sleep

    async def request(
        self,
        operation_id: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        body: Mapping[str, Any] | None = None,
        options: RequestOptions,
    ) -> Any:
        call = self.core.prepare(operation_id, params=params, query=query, body=body, options=options)
        attempt = 1
        while True:
            refused = False
            try:
                response = await self.transport.send(call.request)
            except TransportError as e:
                error = self.core.connection_error(call, e)
                refused = e.kind == "refused"
            else:
                result = self.core.read(call, response, attempt)
                if not isinstance(result, TributaryError):
                    return result
                error = result
            wait = self.core.delay(call, error, attempt, refused)
            if wait is None:
                raise error
            await self.sleep(wait)
            attempt += 1


def _check_timeout(timeout: float) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError("Tributary: timeout must be a positive number of seconds")
    return float(timeout)


def _path(op: Operation, params: Mapping[str, str]) -> str:
    path = op.path
    for name in op.path_params:
        value = params.get(name)
        if not isinstance(value, str) or value == "":
            raise ValueError(f"Tributary: {name} must be a non-empty string")
        path = path.replace(f"{{{name}}}", quote(value, safe=""))
    return path


def _query_value(name: str, value: object, currency: object) -> str:
    if name in DECIMAL_FIELDS:
        return format(amounts.check_amount(value, currency if isinstance(currency, str) else None, name), "f")
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int)):
        return str(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"Tributary: {name} must be a timezone-aware datetime")
        return value.isoformat()
    raise TypeError(f"Tributary: cannot send {name} of type {type(value).__name__} in a query")


def _query_string(query: Mapping[str, Any]) -> str:
    pairs = [
        (name, _query_value(name, value, query.get("currency")))
        for name, value in query.items()
        if value is not None
    ]
    return f"?{urlencode(pairs)}" if pairs else ""


def _checked_body(body: Mapping[str, Any]) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise TypeError(f"Tributary: a request body is a dict, not {type(body).__name__}")
    currency = body.get("currency")
    for name in DECIMAL_FIELDS:
        if name in body and body[name] is not None:
            amounts.check_amount(body[name], currency if isinstance(currency, str) else None, name)
    return body
