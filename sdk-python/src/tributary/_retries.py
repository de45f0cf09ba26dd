"""When a failed try is tried again, and how long to wait first: the Node SDK's policy, shared by the
synchronous and the asynchronous client.

Retried, at most ``max_retries`` times, only where a retry cannot do the work twice:

=================================================  =================================================
answer                                             retried for
=================================================  =================================================
network error, lost connection, timeout            GETs and keyed operations (the server dedupes
                                                   them by Idempotency-Key)
409 ``idempotency_request_in_progress``            keyed operations
429 ``rate_limited``                               everything (refused before any work)
503 (``service_unavailable``, ...)                 GETs and keyed operations
connection refused                                 everything (nothing was sent)
=================================================  =================================================

The wait is jittered exponential backoff (0.5 s doubling, at most 8 s, times a random 0.5-1) and
never shorter than ``Retry-After``; a ``Retry-After`` above 60 s is handed to the caller instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .errors import APIConnectionError, TributaryError, parse_retry_after

DEFAULT_MAX_RETRIES = 2
INITIAL_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 8.0
#: A server asking for a longer wait than this gets its error back at once: the caller decides.
MAX_RETRY_AFTER_SECONDS = 60.0
#: Bounds the retry loop whatever the caller passes.
MAX_RETRIES_CEILING = 10


@dataclass(frozen=True)
class CallKind:
    """What a retry of this call could repeat."""

    #: A GET, or an operation the server dedupes by key: repeating it cannot do the work twice.
    safe: bool
    #: The operation takes an Idempotency-Key.
    keyed: bool


def check_max_retries(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError("Tributary: max_retries must be a non-negative integer")
    return min(n, MAX_RETRIES_CEILING)


def is_retriable(error: TributaryError, kind: CallKind, refused: bool) -> bool:
    if refused:
        return True  # the request never left: nothing can have happened
    if error.http_status is None:
        return kind.safe and isinstance(error, APIConnectionError)
    if error.http_status == 429:
        return True
    if error.http_status == 409:
        return kind.keyed and error.code == "idempotency_request_in_progress"
    if error.http_status == 503:
        return kind.safe
    return False


def backoff_seconds(attempt: int, retry_after: float | None, random: Callable[[], float]) -> float:
    """The wait after try number ``attempt`` (1-based) failed."""
    backoff = min(INITIAL_BACKOFF_SECONDS * 2.0 ** (attempt - 1), MAX_BACKOFF_SECONDS) * (
        0.5 + random() * 0.5
    )
    if retry_after is None:
        return backoff
    # Never earlier than the server asked; a little later at random, so a crowd of throttled
    # clients does not come back in the same instant.
    return max(backoff, retry_after * (1 + random() * 0.1))


def retry_delay(
    error: TributaryError,
    *,
    attempt: int,
    max_retries: int,
    kind: CallKind,
    refused: bool,
    random: Callable[[], float],
) -> float | None:
    """Seconds to wait before trying again, or None when ``error`` is the answer."""
    if attempt > max_retries:
        return None
    retry_after = parse_retry_after(error.headers.get("retry-after"))
    if retry_after is not None and retry_after > MAX_RETRY_AFTER_SECONDS:
        return None
    if not is_retriable(error, kind, refused):
        return None
    return backoff_seconds(attempt, retry_after, random)
