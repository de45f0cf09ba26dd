"""The errors the SDK raises: one class per group of the API's error catalogue (docs/errors.md)."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping
from typing import Any

from ._generated import ERROR_STATUS

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "ConflictError",
    "IdempotencyError",
    "InvalidRequestError",
    "NotFoundError",
    "RateLimitError",
    "ServiceUnavailableError",
    "TributaryError",
    "UnprocessableError",
    "WebhookVerificationError",
    "error_from_response",
    "parse_retry_after",
]


class TributaryError(Exception):
    """The base of every error the SDK raises.

    API errors carry the body's ``code`` (one of the error catalogue, docs/errors.md), the
    ``http_status``, the ``request_id`` to quote to support and, for a field problem, ``param``
    (the first field ``details`` names). Errors raised before or without an answer have
    ``http_status`` None.
    """

    code: str
    message: str
    http_status: int | None
    request_id: str | None
    param: str | None
    details: list[dict[str, Any]]
    #: Response headers, lower-case names.
    headers: Mapping[str, str]
    #: The Idempotency-Key the SDK sent (or you passed): retry the same operation later with it.
    idempotency_key: str | None

    def __init__(
        self,
        message: str,
        *,
        code: str,
        http_status: int | None = None,
        request_id: str | None = None,
        details: list[dict[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.http_status = http_status
        self.request_id = request_id
        self.details = list(details or [])
        field = next((d.get("field") for d in self.details if isinstance(d.get("field"), str)), None)
        self.param = field
        self.headers = dict(headers or {})
        self.idempotency_key = idempotency_key

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.code}: {self.message}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, http_status={self.http_status!r}, "
            f"request_id={self.request_id!r}, param={self.param!r})"
        )


class InvalidRequestError(TributaryError):
    """400, 413, 415: the request is malformed or has invalid fields (``details``, ``param``).

    Also raised before sending when an amount cannot be right (``http_status`` None).
    """


class AuthenticationError(TributaryError):
    """401: the API key is missing, unknown, expired or revoked."""


class NotFoundError(TributaryError):
    """404: no such object for this merchant and environment (or no such route)."""


class ConflictError(TributaryError):
    """409: the object's state forbids the operation, or a live payment uses the reference_no."""


class IdempotencyError(TributaryError):
    """``idempotency_request_in_progress`` (409, once the retries ran out) or
    ``idempotency_key_reused`` (422: the key was used with another body)."""


class UnprocessableError(TributaryError):
    """422: understood but refused (currency, amount bounds, channel, refund rules, endpoint limit)."""


class _RetryAfter(TributaryError):
    @property
    def retry_after(self) -> float | None:
        """Seconds the server asked to wait (``Retry-After``), if it said."""
        return parse_retry_after(self.headers.get("retry-after"))


class RateLimitError(_RetryAfter):
    """429: too many requests; ``retry_after`` says when to come back."""


class ServiceUnavailableError(_RetryAfter):
    """503: the service or every provider is unavailable for now; retry with the same key."""


class APIError(TributaryError):
    """Other 5xx, or an answer the SDK cannot read (``code`` ``invalid_response``)."""


class APIConnectionError(TributaryError):
    """No answer: the connection failed or was lost (``code`` ``connection_error``)."""


class APITimeoutError(APIConnectionError):
    """No answer within the timeout (``code`` ``timeout``)."""


class WebhookVerificationError(TributaryError):
    """A webhook delivery whose signature, timestamp or headers do not check out: do not trust it."""


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date); None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return float(int(text))
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))


def _class_for(code: str, http_status: int) -> type[TributaryError]:
    if code in ("idempotency_request_in_progress", "idempotency_key_reused"):
        return IdempotencyError
    # The catalogue decides the group of a known code; the HTTP status decides for anything newer.
    status = ERROR_STATUS.get(code, http_status)
    if status == 401:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 422:
        return UnprocessableError
    if status == 429:
        return RateLimitError
    if status == 503:
        return ServiceUnavailableError
    if status >= 500:
        return APIError
    if status >= 400:
        return InvalidRequestError
    return APIError


def _is_error_body(body: object) -> bool:
    return (
        isinstance(body, dict)
        and isinstance(body.get("code"), str)
        and isinstance(body.get("message"), str)
        and isinstance(body.get("details"), list)
    )


def error_from_response(
    http_status: int,
    body: object,
    headers: Mapping[str, str],
    idempotency_key: str | None,
) -> TributaryError:
    """The typed error for an API answer that is not 2xx."""
    if isinstance(body, dict) and _is_error_body(body):
        code: str = body["code"]
        message: str = body["message"]
        details = [d for d in body["details"] if isinstance(d, dict)]
        request_id = body.get("request_id") if isinstance(body.get("request_id"), str) else None
    else:
        code = "internal_error" if http_status >= 500 else "invalid_response"
        message = f"The API answered {http_status} without an error body."
        details = []
        request_id = None
    return _class_for(code, http_status)(
        message,
        code=code,
        http_status=http_status,
        request_id=request_id or headers.get("request-id"),
        details=details,
        headers=headers,
        idempotency_key=idempotency_key,
    )
