"""Scenarios the integration test (test/sdk/sdk-python.test.ts) runs against a real Tributary
server: ``python3 scenarios.py NAME`` with TRIBUTARY_BASE_URL and TRIBUTARY_API_KEY set (and what
the scenario names below). Each prints one JSON line of what it saw for the test to check, and
raises (exit 1) on anything it can check by itself. Never prints a key or a secret.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import tributary  # noqa: E402
from tributary import (  # noqa: E402
    AsyncHTTPTransport,
    AsyncTributary,
    HTTPTransport,
    HttpRequest,
    HttpResponse,
    Tributary,
    TributaryError,
    last_response,
    webhooks,
)

BASE_URL = os.environ["TRIBUTARY_BASE_URL"]
API_KEY = os.environ["TRIBUTARY_API_KEY"]


def quick_start(
    reference_no: str, currency: str = "IDR", email: str = "payer@example.com"
) -> tributary.CreatePaymentBody:
    return {
        "amount": Decimal("150000.00"),
        "currency": currency,
        "reference_no": reference_no,
        "email": email,
    }


def meta(obj: Any) -> dict[str, Any]:
    m = last_response(obj)
    assert m is not None
    return {
        "status": m.status_code,
        "attempts": m.attempts,
        "replayed": m.replayed,
        "idempotency_key": m.idempotency_key,
        "request_id": m.request_id,
    }


class Counting:
    """Wraps the default transport and records the path of every request."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self._inner = HTTPTransport()

    def send(self, request: HttpRequest) -> HttpResponse:
        self.paths.append(request.url.removeprefix(BASE_URL))
        return self._inner.send(request)


class AsyncCounting:
    def __init__(self) -> None:
        self.paths: list[str] = []
        self._inner = AsyncHTTPTransport()

    async def send(self, request: HttpRequest) -> HttpResponse:
        self.paths.append(request.url.removeprefix(BASE_URL))
        return await self._inner.send(request)


def retry_create() -> dict[str, Any]:
    """Through a proxy that loses the first answer of every keyed request (the server did the work)."""
    client = Tributary(API_KEY, base_url=BASE_URL, timeout=15)
    payment = client.payments.create(quick_start(os.environ["REFERENCE_NO"]))

    async def in_async() -> Any:
        async_client = AsyncTributary(API_KEY, base_url=BASE_URL, timeout=15)
        return await async_client.payments.create(quick_start(os.environ["REFERENCE_NO_ASYNC"]))

    async_payment = asyncio.run(in_async())
    canceled = client.payments.cancel(payment["id"], {"cancellation_reason": "abandoned"})
    assert canceled["status"] == "canceled", canceled["status"]
    return {
        "sync": {"id": payment["id"], "reference_no": payment["reference_no"], **meta(payment)},
        "async": {
            "id": async_payment["id"],
            "reference_no": async_payment["reference_no"],
            **meta(async_payment),
        },
        "cancel": {"id": canceled["id"], **meta(canceled)},
    }


def errors() -> dict[str, Any]:
    client = Tributary(API_KEY, base_url=BASE_URL)
    seen: dict[str, Any] = {}

    def expect(name: str, call: Callable[[], object]) -> None:
        try:
            call()
        except TributaryError as e:
            seen[name] = {
                "class": type(e).__name__,
                "bases": [c.__name__ for c in type(e).__mro__ if issubclass(c, TributaryError)],
                "code": e.code,
                "http_status": e.http_status,
                "param": e.param,
                "request_id": e.request_id,
                "idempotency_key": e.idempotency_key,
                "issue": e.details[0].get("issue") if e.details else None,
            }
        else:
            raise AssertionError(f"{name}: no error")

    stamp = f"{os.getpid()}-{time.time_ns()}"
    expect(
        "invalid_email",
        lambda: client.payments.create(quick_start(f"py-e1-{stamp}", email="not-an-email")),
    )
    expect(
        "too_precise_local",
        lambda: client.payments.create({"amount": Decimal("10.005"), "currency": "USD", "reference_no": "x"}),
    )
    expect("not_found", lambda: client.payments.retrieve("pay_00000000000000000000000000"))
    body = quick_start(f"py-e2-{stamp}")
    client.payments.create(body)
    expect("conflict", lambda: client.payments.create(body))
    key = f"py-reused-{stamp}"
    client.payments.create(quick_start(f"py-e3-{stamp}"), idempotency_key=key)
    expect("key_reused", lambda: client.payments.create(quick_start(f"py-e4-{stamp}"), idempotency_key=key))
    expect("currency", lambda: client.payments.create(quick_start(f"py-e5-{stamp}", currency="EUR")))
    expect("unauthorized", lambda: Tributary("sk_test_not_a_real_key", base_url=BASE_URL).payments.list())
    expect(
        "api_version", lambda: Tributary(API_KEY, base_url=BASE_URL, api_version="1999-01-01").payments.list()
    )
    refund_source = client.payments.create(quick_start(f"py-e6-{stamp}"))
    expect("cancel_twice", lambda: [client.payments.cancel(refund_source["id"]) for _ in range(2)])
    return seen


def pagination() -> dict[str, Any]:
    sync_transport = Counting()
    client = Tributary(API_KEY, base_url=BASE_URL, transport=sync_transport)
    first = client.payments.list({"limit": 3})
    sync_ids = [p["id"] for p in first]
    sync_paths = list(sync_transport.paths)
    some = [p["id"] for p in client.payments.list({"limit": 2}).to_list(limit=5)]
    amounts = {str(p["amount"]) for p in first.data}

    async def in_async() -> dict[str, Any]:
        transport = AsyncCounting()
        async_client = AsyncTributary(API_KEY, base_url=BASE_URL, transport=transport)
        page = await async_client.payments.list({"limit": 3})
        ids = [p["id"] async for p in async_client.payments.list({"limit": 3})]
        return {
            "first_page": [p["id"] for p in page.data],
            "ids": ids,
            "paths": transport.paths,
            "events": len([e async for e in async_client.events.list({"limit": 2, "type": "payment.*"})]),
        }

    return {
        "first_page": {
            "ids": [p["id"] for p in first.data],
            "has_more": first.has_more,
            "next_cursor": first.next_cursor,
        },
        "sync_ids": sync_ids,
        "sync_paths": sync_paths,
        "to_list": some,
        "amounts": sorted(amounts),
        "async": asyncio.run(in_async()),
    }


def webhook() -> dict[str, Any]:
    """Verifies a real delivery (and signatures made by the standardwebhooks package) from a file."""
    fixture = json.loads(Path(os.environ["WEBHOOK_FIXTURE"]).read_text())
    secret = os.environ["WEBHOOK_SECRET"]
    delivery = fixture["delivery"]
    body = delivery["body"].encode("utf-8")
    now = int(fixture["now"])
    event = webhooks.verify(body, delivery["headers"], secret, now=now)
    sent = int(delivery["headers"]["webhook-timestamp"])

    def refused(payload: bytes, headers: dict[str, str], key: str, at: int) -> bool:
        try:
            webhooks.verify(payload, headers, key, now=at)
        except tributary.WebhookVerificationError:
            return True
        return False

    other = "whsec_" + base64.b64encode(b"another secret of 32 bytes......").decode()
    verdicts = {
        "tampered": refused(body.replace(b'"pending"', b'"succeeded"'), delivery["headers"], secret, now),
        "other_secret": refused(body, delivery["headers"], other, now),
        "at_plus_300": not refused(body, delivery["headers"], secret, sent + 300),
        "at_plus_301": refused(body, delivery["headers"], secret, sent + 301),
        "at_minus_301": refused(body, delivery["headers"], secret, sent - 301),
    }
    library = []
    for sample in fixture["samples"]:
        headers = {
            "webhook-id": sample["id"],
            "webhook-timestamp": str(sample["timestamp"]),
            "webhook-signature": sample["signature"],
        }
        library.append(
            {
                "ours_sign": webhooks.sign(
                    sample["secret"], sample["id"], sample["timestamp"], sample["body"]
                ),
                "verified": not refused(
                    sample["body"].encode(), headers, sample["secret"], sample["timestamp"]
                ),
            }
        )
    # The type tells the shape: data.object of a payment.* event is a Payment.
    assert event["type"] == "payment.pending", event["type"]
    payment = event["data"]["object"]
    return {
        "id": event["id"],
        "type": event["type"],
        "object_id": payment["id"],
        "amount": str(payment["amount"]),
        "amount_is_decimal": isinstance(payment["amount"], Decimal),
        "verdicts": verdicts,
        "library": library,
    }


def resources() -> dict[str, Any]:
    """Every resource once against the server, with the merchant's paid payment PAID_PAYMENT_ID."""
    client = Tributary(API_KEY, base_url=BASE_URL)
    paid = os.environ["PAID_PAYMENT_ID"]
    stamp = f"{os.getpid()}-{time.time_ns()}"
    out: dict[str, Any] = {}

    methods = client.payment_methods.list({"amount": Decimal("150000.00"), "currency": "IDR"})
    out["payment_methods"] = sorted({m["channel"] for m in methods["data"]})
    settled = client.sandbox.simulate(paid, {"outcome": "settled"})
    out["simulate"] = {"outcome": settled["outcome"], "settlement_id": settled.get("settlement_id")}
    payment = client.payments.retrieve(paid)
    out["payment"] = {
        "status": payment["status"],
        "settlement_id": payment["settlement_id"],
        "fee_is_decimal": isinstance(payment["fee"], Decimal),
    }
    settlement_ids = [s["id"] for s in client.settlements.list({"limit": 1})]
    settlement = client.settlements.retrieve(settlement_ids[0])
    out["settlements"] = {
        "ids": settlement_ids,
        "gross": str(settlement["gross"]),
        "currency": settlement["currency"],
    }
    out["settlement_exceptions"] = client.settlement_exceptions.list({"limit": 5}).data

    rec = client.reconciliation.create(
        {"connector": "sandbox_bank", "from": os.environ["FROM"], "to": os.environ["TO"]}
    )
    lines = list(client.reconciliation.lines(rec["id"], {"limit": 1}))
    out["reconciliation"] = {
        "id": rec["id"],
        "keyed": (meta(rec)["idempotency_key"] or "").startswith("tributary-python-"),
        "retrieved": client.reconciliation.retrieve(rec["id"])["id"] == rec["id"],
        "lines": [{"payment_id": line["payment_id"], "result": line["result"]} for line in lines],
        "csv_has_payment": paid in client.reconciliation.export_csv(rec["id"]),
    }

    refund = client.refunds.create(paid, {"amount": Decimal("50000"), "reason": "requested_by_customer"})
    out["refund"] = {
        "id": refund["id"],
        "amount": str(refund["amount"]),
        "retrieved": client.refunds.retrieve(refund["id"])["id"] == refund["id"],
        **meta(refund),
    }
    balance = client.balance.retrieve({"verify": True})
    out["balance"] = {
        "verification": balance["verification"]["status"] if balance["verification"] else None,
        "lines": [{k: str(v) for k, v in line.items()} for line in balance["balances"]],
    }

    endpoint = client.webhook_endpoints.create(
        {"url": "http://127.0.0.1:9/hook", "enabled_events": ["payment.pending"]}
    )
    updated = client.webhook_endpoints.update(endpoint["id"], {"description": "orders"})
    rotated = client.webhook_endpoints.rotate_secret(endpoint["id"], {"expire_previous_in_seconds": 0})
    created = client.payments.create(quick_start(f"py-res-{stamp}"))
    events = list(client.events.list({"object_id": created["id"], "limit": 1}))
    pending = next(e for e in events if e["type"] == "payment.pending")
    resent = client.events.resend(pending["id"], {"endpoint_id": endpoint["id"]})
    deliveries = client.events.deliveries(pending["id"])
    out["webhook_endpoints"] = {
        "secret_shown_once": endpoint["secret"].startswith("whsec_")
        and "secret" not in client.webhook_endpoints.retrieve(endpoint["id"]),
        "description": updated["description"],
        "rotated": rotated["secret"] != endpoint["secret"],
        "listed": [e["id"] for e in client.webhook_endpoints.list()["data"]] == [endpoint["id"]],
        "deleted": client.webhook_endpoints.delete(endpoint["id"])["deleted"],
    }
    out["events"] = {
        "types": sorted({e["type"] for e in events}),
        "retrieved": client.events.retrieve(pending["id"])["data"]["object"]["id"] == created["id"],
        "resent": resent["object"],
        "deliveries": len(deliveries["data"]) >= 1,
    }
    first_read = client.callback_secret.retrieve()
    rotated_secret = client.callback_secret.rotate({"expire_previous_in_seconds": 0})
    out["callback_secret"] = {"object": first_read["object"], "rotated": rotated_secret["object"]}
    # The audit log saw the endpoint's life, newest first, paged two at a time.
    about_endpoint = [e["action"] for e in client.audit_log.list({"object_id": endpoint["id"], "limit": 2})]
    rotations = client.audit_log.list({"action": "callback_secret.rotated"}).data
    out["audit_log"] = {
        "endpoint": about_endpoint,
        "rotation_by_key": [e["actor"]["type"] for e in rotations],
        "object": rotations[0]["object"] if rotations else None,
    }

    async def in_async() -> dict[str, Any]:
        async_client = AsyncTributary(API_KEY, base_url=BASE_URL)
        again = await async_client.payments.retrieve(created["id"])
        canceled = await async_client.payments.cancel(created["id"])
        return {"retrieved": again["id"] == created["id"], "canceled": canceled["status"]}

    out["async"] = asyncio.run(in_async())
    return out


def checkouts() -> dict[str, Any]:
    """Create, retrieve, list (paged), select with the client_secret, expire; the async client too."""
    client = Tributary(API_KEY, base_url=BASE_URL)
    body: tributary.CreateCheckoutBody = {
        "amount": Decimal("150000.00"),
        "currency": "IDR",
        "reference_no": os.environ["REFERENCE_NO"],
        "email": "payer@example.com",
    }
    checkout = client.checkouts.create(body)
    second = client.checkouts.create({**body, "reference_no": os.environ["REFERENCE_NO_2"]})
    retrieved = client.checkouts.retrieve(checkout["id"])
    listed = [c["id"] for c in client.checkouts.list({"limit": 1, "status": "open"})]
    try:
        client.checkouts.select(checkout["id"], {"client_secret": "cs_secret_wrong", "channel": "bank"})
    except TributaryError as e:
        wrong_secret = {"class": type(e).__name__, "code": e.code}
    else:
        raise AssertionError("a wrong client_secret was accepted")
    selected = client.checkouts.select(
        checkout["id"], {"client_secret": checkout["client_secret"], "channel": "bank"}
    )
    payment = selected["payment"]
    assert isinstance(payment, dict), payment

    async def in_async() -> dict[str, Any]:
        async_client = AsyncTributary(API_KEY, base_url=BASE_URL)
        again = await async_client.checkouts.retrieve(checkout["id"])
        page = await async_client.checkouts.list({"limit": 10})
        expired = await async_client.checkouts.expire(second["id"])
        return {
            "payment": again["payment"],
            "listed": sorted(c["id"] for c in page.data),
            "expired": expired["status"],
        }

    in_async_out = asyncio.run(in_async())
    expired = client.checkouts.expire(checkout["id"])
    return {
        "id": checkout["id"],
        "second": second["id"],
        "status": checkout["status"],
        "amount": str(checkout["amount"]),
        "amount_is_decimal": isinstance(checkout["amount"], Decimal),
        "secret_shown": bool(checkout.get("client_secret")),
        "create": meta(checkout),
        "retrieved": {"id": retrieved["id"], "has_secret": "client_secret" in retrieved},
        "listed": listed,
        "wrong_secret": wrong_secret,
        "selected": {
            "id": selected["id"],
            "status": selected["status"],
            "payment_id": payment["id"],
            "payment_status": payment["status"],
            "channel": payment["channel"],
            "amount": str(payment["amount"]),
            "amount_is_decimal": isinstance(payment["amount"], Decimal),
            "instructions": isinstance(payment["instructions"], dict),
            "payments": selected["payments"],
            "meta": meta(selected),
        },
        "async": in_async_out,
        "expired": {"status": expired["status"], "closed": expired["closed_at"] is not None},
        "payment_after": client.payments.retrieve(payment["id"])["status"],
    }


def payment_links() -> dict[str, Any]:
    """Create (keyed; replayed by key), a visit, retrieve, list (paged), deactivate; the async client too."""
    client = Tributary(API_KEY, base_url=BASE_URL)
    fixed = client.payment_links.create(
        {"amount": Decimal("150000.00"), "currency": "IDR", "description": "Yoga class", "max_uses": 2}
    )
    bounds: tributary.CreatePaymentLinkBody = {
        "amount_min": Decimal("50000"),
        "amount_max": Decimal("2000000.00"),
        "currency": "IDR",
    }
    key = os.environ["LINK_KEY"]
    bounded = client.payment_links.create(bounds, idempotency_key=key)
    again = client.payment_links.create(bounds, idempotency_key=key)
    try:
        client.payment_links.create({"amount": 150000.5, "currency": "IDR"})  # type: ignore[typeddict-item]
    except TypeError:
        float_refused = True
    else:
        float_refused = False
    visit = client.payment_links.start_checkout(fixed["id"])
    try:
        client.payment_links.start_checkout(bounded["id"], {"amount": Decimal("100")})
    except TributaryError as e:
        outside = {"class": type(e).__name__, "param": e.param, "issue": e.details[0].get("issue")}
    else:
        raise AssertionError("an amount outside the bounds was accepted")
    entered = client.payment_links.start_checkout(bounded["id"], {"amount": Decimal("75000.50")})
    retrieved = client.payment_links.retrieve(fixed["id"])
    listed = [link["id"] for link in client.payment_links.list({"limit": 1})]

    async def in_async() -> dict[str, Any]:
        async_client = AsyncTributary(API_KEY, base_url=BASE_URL)
        got = await async_client.payment_links.retrieve(bounded["id"])
        paged = [link["id"] async for link in async_client.payment_links.list({"limit": 1})]
        deactivated = await async_client.payment_links.deactivate(bounded["id"])
        return {"open": got["checkouts"]["open"], "listed": sorted(paged), "deactivated": deactivated["status"]}

    in_async_out = asyncio.run(in_async())
    deactivated = client.payment_links.deactivate(fixed["id"])
    try:
        client.payment_links.start_checkout(fixed["id"])
    except TributaryError as e:
        inactive = {"class": type(e).__name__, "code": e.code}
    else:
        raise AssertionError("an inactive link took a visit")
    return {
        "id": fixed["id"],
        "bounded": bounded["id"],
        "status": fixed["status"],
        "url": fixed["url"],
        "amount": str(fixed["amount"]),
        "amount_is_decimal": isinstance(fixed["amount"], Decimal),
        "bounds": [str(bounded["amount_min"]), str(bounded["amount_max"])],
        "create": meta(fixed),
        "replay": {"id": again["id"], "replayed": meta(again)["replayed"]},
        "float_refused": float_refused,
        "visit": {"id": visit["id"], "amount": str(visit["amount"]), "meta": meta(visit)},
        "outside": outside,
        "entered": str(entered["amount"]),
        "retrieved": {
            "open": retrieved["checkouts"]["open"],
            "remaining": retrieved["remaining_uses"],
            "collected": str(retrieved["totals"]["collected"]),
        },
        "listed": sorted(listed),
        "async": in_async_out,
        "deactivated": {"status": deactivated["status"], "at": deactivated["deactivated_at"] is not None},
        "inactive": inactive,
    }


SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    "retry_create": retry_create,
    "errors": errors,
    "pagination": pagination,
    "webhook": webhook,
    "resources": resources,
    "checkouts": checkouts,
    "payment_links": payment_links,
}

if __name__ == "__main__":
    print(json.dumps(SCENARIOS[sys.argv[1]](), default=str))
