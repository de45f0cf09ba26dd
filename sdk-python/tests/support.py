"""Shared by the unit tests: the package on the path, and fake transports that record requests and
play scripted answers (no network)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# `python3 -m unittest discover -s tests` from sdk-python/, without installing the package.
SRC = Path(__file__).resolve().parent.parent / "src"
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from tributary import AsyncTributary, HttpRequest, HttpResponse, Tributary  # noqa: E402

Answer = HttpResponse | Exception | Callable[[HttpRequest], HttpResponse]


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> HttpResponse:
    text = body if isinstance(body, str) else json.dumps(body)
    return HttpResponse(
        status,
        {"content-type": "application/json; charset=utf-8", "request-id": "req_TEST", **(headers or {})},
        text.encode("utf-8"),
    )


def error_response(
    status: int, code: str, headers: dict[str, str] | None = None, **extra: Any
) -> HttpResponse:
    body = {"code": code, "message": f"{code} (test)", "details": [], "request_id": "req_ERR", **extra}
    return json_response(status, body, headers)


class FakeTransport:
    """Answers each request with the next scripted answer: a response, an exception to raise, or a
    function of the request."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[HttpRequest] = []

    def _next(self, request: HttpRequest) -> HttpResponse:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"unexpected request {request.method} {request.url}")
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, HttpResponse):
            return answer
        return answer(request)

    def send(self, request: HttpRequest) -> HttpResponse:
        return self._next(request)


class FakeAsyncTransport(FakeTransport):
    async def send(self, request: HttpRequest) -> HttpResponse:  # type: ignore[override]
        return self._next(request)


class Sleeps(list[float]):
    """Records the client's waits instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


class AsyncSleeps(list[float]):
    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


def sync_client(transport: FakeTransport, **options: Any) -> tuple[Tributary, Sleeps]:
    sleeps = Sleeps()
    client = Tributary(
        "sk_test_unit", base_url="http://api.test", transport=transport, sleep=sleeps, **options
    )
    return client, sleeps


def async_client(transport: FakeAsyncTransport, **options: Any) -> tuple[AsyncTributary, AsyncSleeps]:
    sleeps = AsyncSleeps()
    client = AsyncTributary(
        "sk_test_unit", base_url="http://api.test", transport=transport, sleep=sleeps, **options
    )
    return client, sleeps


def header(request: HttpRequest, name: str) -> str | None:
    return next((v for k, v in request.headers.items() if k.lower() == name.lower()), None)


PAYMENT = {
    "id": "pay_1",
    "object": "payment",
    "status": "pending",
    "amount": 150000,
    "currency": "IDR",
    "amount_refunded": 0,
    "version": 1,
}
