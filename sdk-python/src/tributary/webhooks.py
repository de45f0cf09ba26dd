"""Webhook verification, as Standard Webhooks (https://www.standardwebhooks.com) specifies it.

A delivery carries ``webhook-id``, ``webhook-timestamp`` (Unix seconds) and ``webhook-signature``:
one or more space-separated ``v1,<base64>`` signatures (two during a secret rotation), each an
HMAC-SHA256 of ``{webhook-id}.{webhook-timestamp}.{raw body}`` keyed with the base64 part of the
endpoint's ``whsec_…`` secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from . import amounts
from ._generated import WebhookEvent
from .errors import WebhookVerificationError

__all__ = ["DEFAULT_TOLERANCE_SECONDS", "sign", "verify"]

#: How far ``webhook-timestamp`` may be from now, either way.
DEFAULT_TOLERANCE_SECONDS = 300
SECRET_PREFIX = "whsec_"
_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")


def _fail(message: str) -> WebhookVerificationError:
    return WebhookVerificationError(message, code="webhook_verification_failed")


def _header(headers: Mapping[str, Any], name: str) -> str | None:
    # Any mapping works: a dict, Django's request.headers, Starlette's Headers, or a WSGI environ
    # (HTTP_WEBHOOK_ID); names are compared without case, a list value gives its first item.
    wsgi = "HTTP_" + name.upper().replace("-", "_")
    for key, value in headers.items():
        if isinstance(key, str) and (key.lower() == name or key == wsgi):
            if isinstance(value, (list, tuple)):
                value = value[0] if value else None
            if isinstance(value, bytes):
                value = value.decode("latin-1")
            return value if isinstance(value, str) else None
    return None


def _key(secret: str) -> bytes:
    if not isinstance(secret, str):
        raise TypeError("Tributary: the webhook secret must be a whsec_… string")
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if not key:
        raise ValueError("Tributary: the webhook secret must be a whsec_… secret")
    return key


def _raw(payload: bytes | bytearray | memoryview | str) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise TypeError("Tributary: verify the raw body (bytes or str), not a parsed object")


def _seconds(at: float | datetime | None) -> int:
    if at is None:
        return int(time.time())
    if isinstance(at, datetime):
        if at.tzinfo is None:
            raise ValueError("Tributary: now must be a timezone-aware datetime")
        return int(at.timestamp())
    return int(at)


def sign(secret: str, msg_id: str, timestamp: int, payload: bytes | bytearray | memoryview | str) -> str:
    """The ``v1,<base64>`` signature of a delivery (for tests and for sending your own)."""
    digest = hmac.new(
        _key(secret), f"{msg_id}.{timestamp}.".encode() + _raw(payload), hashlib.sha256
    ).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify(
    payload: bytes | bytearray | memoryview | str,
    headers: Mapping[str, Any],
    secret: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    now: float | datetime | None = None,
) -> WebhookEvent:
    """Verifies a webhook delivery and returns its event (amounts as Decimal).

    ``payload`` must be the raw body as received: a body parsed and serialised again no longer
    matches. Any one of the space-separated signatures is enough (secret rotation); only ``v1``
    counts; the comparison is constant-time (``hmac.compare_digest``). The timestamp must be
    within ``tolerance`` seconds of ``now`` (default: the clock), so a captured delivery cannot be
    replayed later. Raises :class:`WebhookVerificationError`; ignore event types you do not know.
    """
    key = _key(secret)
    body = _raw(payload)
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if msg_id is None or timestamp is None or signatures is None:
        raise _fail("Missing webhook-id, webhook-timestamp or webhook-signature header.")
    if not _TIMESTAMP.match(timestamp):
        raise _fail("Invalid webhook-timestamp header.")
    sent = int(timestamp)
    current = _seconds(now)
    if current - sent > tolerance:
        raise _fail("The webhook timestamp is too old.")
    if sent - current > tolerance:
        raise _fail("The webhook timestamp is too far in the future.")

    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    matched = False
    for candidate in signatures.split(" "):
        version, comma, encoded = candidate.partition(",")
        if not comma or version != "v1":
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        # Every candidate is compared (no early exit), in constant time for its length.
        matched = hmac.compare_digest(given, expected) or matched
    if not matched:
        raise _fail("No matching webhook signature.")

    try:
        event = amounts.loads(body)
    except ValueError as e:
        raise _fail("The webhook body is not JSON.") from e
    if not isinstance(event, dict):
        raise _fail("The webhook body is not an event object.")
    return cast(WebhookEvent, event)
