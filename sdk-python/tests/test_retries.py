"""The retry policy (the Node SDK's table) and the Idempotency-Key reused by every try of a call."""

from __future__ import annotations

import asyncio
import unittest
from decimal import Decimal

from support import (
    PAYMENT,
    FakeAsyncTransport,
    FakeTransport,
    async_client,
    error_response,
    header,
    json_response,
    sync_client,
)

from tributary import (
    APIConnectionError,
    APITimeoutError,
    ConflictError,
    IdempotencyError,
    InvalidRequestError,
    RateLimitError,
    ServiceUnavailableError,
    TransportError,
    last_response,
)
from tributary._retries import MAX_BACKOFF_SECONDS, backoff_seconds

BODY = {"amount": Decimal("150000.00"), "currency": "IDR", "reference_no": "order-1"}
ENDPOINT = {"id": "we_1", "object": "webhook_endpoint", "secret": "whsec_x"}
#: What select answers: the checkout with ``payment`` expanded.
SELECTED = {"id": "cs_1", "object": "checkout", "amount": 10, "currency": "USD", "payment": PAYMENT}
SELECT = {"client_secret": "cs_secret_x", "channel": "bank"}


def lost() -> TransportError:
    return TransportError("connection", "the connection was lost")


def refused() -> TransportError:
    return TransportError("refused", "connection refused")


class Backoff(unittest.TestCase):
    def test_exponential_from_half_a_second_capped_at_eight_and_jittered_by_half(self) -> None:
        lowest = [backoff_seconds(n, None, lambda: 0.0) for n in range(1, 8)]
        highest = [backoff_seconds(n, None, lambda: 1.0) for n in range(1, 8)]
        self.assertEqual(highest, [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0])
        self.assertEqual(lowest, [h / 2 for h in highest])
        self.assertLessEqual(max(highest), MAX_BACKOFF_SECONDS)

    def test_never_earlier_than_retry_after_and_at_most_ten_percent_later(self) -> None:
        self.assertEqual(backoff_seconds(1, 3.0, lambda: 0.0), 3.0)
        self.assertAlmostEqual(backoff_seconds(1, 3.0, lambda: 1.0), 3.3)
        self.assertEqual(backoff_seconds(5, 1.0, lambda: 1.0), 8.0, "a longer backoff wins")


class SyncRetries(unittest.TestCase):
    def test_a_lost_answer_is_retried_with_the_same_key(self) -> None:
        transport = FakeTransport(lost(), json_response(201, PAYMENT, {"idempotent-replayed": "true"}))
        client, sleeps = sync_client(transport)
        payment = client.payments.create(BODY)
        keys = [header(r, "Idempotency-Key") for r in transport.requests]
        self.assertEqual(len(keys), 2)
        self.assertRegex(
            keys[0] or "", r"^tributary-python-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$"
        )
        self.assertEqual(keys[1], keys[0])
        self.assertEqual(transport.requests[0].body, transport.requests[1].body)
        meta = last_response(payment)
        assert meta is not None
        self.assertEqual((meta.attempts, meta.replayed, meta.idempotency_key), (2, True, keys[0]))
        self.assertEqual(len(sleeps), 1)
        self.assertTrue(0.25 <= sleeps[0] <= 0.5)

    def test_two_calls_get_two_keys_and_a_given_key_is_used(self) -> None:
        transport = FakeTransport(*(json_response(201, PAYMENT) for _ in range(3)))
        client, _ = sync_client(transport)
        client.payments.create(BODY)
        client.payments.create(BODY)
        client.payments.create(BODY, idempotency_key="order-1-create")
        keys = [header(r, "Idempotency-Key") for r in transport.requests]
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2], "order-1-create")

    def test_every_keyed_operation_sends_a_key_and_reads_do_not(self) -> None:
        transport = FakeTransport(*(json_response(200, {"id": "x"}) for _ in range(5)))
        client, _ = sync_client(transport)
        client.payments.cancel("pay_1")
        client.refunds.create("pay_1")
        client.reconciliation.create(
            {"connector": "sandbox_bank", "from": "2026-11-01T00:00:00Z", "to": "2026-11-02T00:00:00Z"}
        )
        client.payments.retrieve("pay_1")
        client.webhook_endpoints.update("we_1", {"description": "x"})
        keyed = [header(r, "Idempotency-Key") is not None for r in transport.requests]
        self.assertEqual(keyed, [True, True, True, False, False])

    def test_checkouts_create_and_select_are_keyed_expire_is_not(self) -> None:
        transport = FakeTransport(*(json_response(200, {"id": "cs_1"}) for _ in range(3)))
        client, _ = sync_client(transport)
        client.checkouts.create({"amount": Decimal("150000.00"), "currency": "IDR", "reference_no": "r"})
        client.checkouts.select("cs_1", SELECT)
        client.checkouts.expire("cs_1")
        keys = [header(r, "Idempotency-Key") for r in transport.requests]
        self.assertRegex(keys[0] or "", r"^tributary-python-")
        self.assertRegex(keys[1] or "", r"^tributary-python-")
        self.assertIsNone(keys[2])
        select, expire = transport.requests[1], transport.requests[2]
        self.assertEqual((select.method, select.url), ("POST", "http://api.test/checkout/cs_1/select"))
        self.assertEqual(select.body, b'{"client_secret":"cs_secret_x","channel":"bank"}')
        self.assertEqual((expire.url, expire.body), ("http://api.test/checkout/cs_1/expire", b"{}"))

    def test_a_selection_is_retried_like_a_cancel_but_not_over_a_busy_checkout(self) -> None:
        transport = FakeTransport(
            lost(),
            error_response(503, "provider_unavailable", {"retry-after": "1"}),
            json_response(200, SELECTED),
        )
        client, _ = sync_client(transport)
        checkout = client.checkouts.select("cs_1", SELECT)
        keys = {header(r, "Idempotency-Key") for r in transport.requests}
        self.assertEqual(len(transport.requests), 3)
        self.assertEqual(len(keys), 1, "one key for the logical call")
        payment = checkout["payment"]
        assert isinstance(payment, dict)
        self.assertEqual(payment["amount"], Decimal("150000.00"), "the expanded payment's amount: a Decimal")
        self.assertEqual(checkout["amount"], Decimal("10.00"))

        transport = FakeTransport(error_response(409, "checkout_busy", {"retry-after": "1"}))
        client, _ = sync_client(transport)
        with self.assertRaises(ConflictError) as caught:
            client.checkouts.select("cs_1", SELECT)
        self.assertEqual(caught.exception.code, "checkout_busy")
        self.assertEqual(len(transport.requests), 1, "another selection (perhaps the payer's) is running")

        transport = FakeTransport(lost())
        client, _ = sync_client(transport)
        with self.assertRaises(APIConnectionError):
            client.checkouts.expire("cs_1")
        self.assertEqual(len(transport.requests), 1, "expire is not keyed: not resent after a lost answer")

    def test_409_in_progress_waits_for_retry_after(self) -> None:
        transport = FakeTransport(
            error_response(409, "idempotency_request_in_progress", {"retry-after": "2"}),
            json_response(201, PAYMENT),
        )
        client, sleeps = sync_client(transport)
        client.payments.create(BODY)
        self.assertEqual(len(transport.requests), 2)
        self.assertTrue(2.0 <= sleeps[0] <= 2.2, sleeps)

    def test_409_in_progress_is_an_idempotency_error_once_retries_run_out(self) -> None:
        answers = [
            error_response(409, "idempotency_request_in_progress", {"retry-after": "1"}) for _ in range(3)
        ]
        client, _ = sync_client(FakeTransport(*answers))
        with self.assertRaises(IdempotencyError) as caught:
            client.payments.create(BODY)
        self.assertEqual(caught.exception.http_status, 409)
        self.assertTrue((caught.exception.idempotency_key or "").startswith("tributary-python-"))

    def test_429_is_retried_for_everything(self) -> None:
        transport = FakeTransport(
            error_response(429, "rate_limited", {"retry-after": "1"}), json_response(201, ENDPOINT)
        )
        client, sleeps = sync_client(transport)
        client.webhook_endpoints.create({"url": "https://shop.example/hook"})
        self.assertEqual(len(transport.requests), 2)
        self.assertGreaterEqual(sleeps[0], 1.0)

    def test_503_is_retried_for_reads_and_keyed_operations_only(self) -> None:
        transport = FakeTransport(
            error_response(503, "provider_unavailable", {"retry-after": "1"}), json_response(201, PAYMENT)
        )
        client, _ = sync_client(transport)
        client.payments.create(BODY)
        self.assertEqual(len(transport.requests), 2)

        transport = FakeTransport(error_response(503, "service_unavailable"), json_response(200, PAYMENT))
        client, _ = sync_client(transport)
        client.payments.retrieve("pay_1")
        self.assertEqual(len(transport.requests), 2)

        transport = FakeTransport(error_response(503, "service_unavailable"))
        client, _ = sync_client(transport)
        with self.assertRaises(ServiceUnavailableError):
            client.webhook_endpoints.create({"url": "https://shop.example/hook"})
        self.assertEqual(len(transport.requests), 1)

    def test_a_lost_answer_of_an_unkeyed_post_is_not_retried_but_a_refused_connection_is(self) -> None:
        transport = FakeTransport(lost())
        client, _ = sync_client(transport)
        with self.assertRaises(APIConnectionError) as caught:
            client.webhook_endpoints.create({"url": "https://shop.example/hook"})
        self.assertEqual((caught.exception.code, caught.exception.http_status), ("connection_error", None))
        self.assertEqual(len(transport.requests), 1, "a retry could have made a second endpoint")

        transport = FakeTransport(refused(), json_response(201, ENDPOINT))
        client, _ = sync_client(transport)
        client.webhook_endpoints.create({"url": "https://shop.example/hook"})
        self.assertEqual(len(transport.requests), 2, "nothing was sent: safe to send")

    def test_timeouts_are_retried_for_reads(self) -> None:
        transport = FakeTransport(TransportError("timeout", "slow"), json_response(200, PAYMENT))
        client, _ = sync_client(transport)
        client.payments.retrieve("pay_1")
        self.assertEqual(len(transport.requests), 2)
        transport = FakeTransport(*(TransportError("timeout", "slow") for _ in range(3)))
        client, _ = sync_client(transport)
        with self.assertRaises(APITimeoutError) as caught:
            client.payments.retrieve("pay_1")
        self.assertEqual(caught.exception.code, "timeout")

    def test_bounded_by_max_retries_per_client_and_per_call(self) -> None:
        transport = FakeTransport(*(lost() for _ in range(3)))
        client, sleeps = sync_client(transport)
        with self.assertRaises(APIConnectionError) as caught:
            client.payments.create(BODY)
        self.assertEqual(len(transport.requests), 3, "first try + 2 retries (the default)")
        self.assertEqual(len(sleeps), 2)
        self.assertEqual(caught.exception.idempotency_key, header(transport.requests[0], "Idempotency-Key"))

        transport = FakeTransport(lost())
        client, _ = sync_client(transport)
        with self.assertRaises(APIConnectionError):
            client.payments.create(BODY, max_retries=0)
        self.assertEqual(len(transport.requests), 1)

        transport = FakeTransport(*(lost() for _ in range(6)))
        client, sleeps = sync_client(transport, max_retries=5)
        with self.assertRaises(APIConnectionError):
            client.payments.retrieve("pay_1")
        self.assertEqual(len(transport.requests), 6)
        for wait, ceiling in zip(sleeps, [0.5, 1, 2, 4, 8], strict=True):
            self.assertTrue(ceiling / 2 <= wait <= ceiling, (wait, ceiling))

    def test_a_retry_after_beyond_a_minute_is_handed_to_the_caller(self) -> None:
        transport = FakeTransport(error_response(429, "rate_limited", {"retry-after": "120"}))
        client, _ = sync_client(transport)
        with self.assertRaises(RateLimitError) as caught:
            client.payments.list()
        self.assertEqual(caught.exception.retry_after, 120.0)
        self.assertEqual(len(transport.requests), 1)

    def test_client_errors_are_never_retried(self) -> None:
        for answer in (
            error_response(400, "invalid_request"),
            error_response(409, "reference_no_conflict"),
            error_response(422, "idempotency_key_reused"),
            error_response(500, "internal_error"),
        ):
            transport = FakeTransport(answer)
            client, _ = sync_client(transport)
            with self.assertRaises(Exception):
                client.payments.create(BODY)
            self.assertEqual(len(transport.requests), 1, answer.body)

    def test_bad_settings_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            sync_client(FakeTransport(), max_retries=-1)
        with self.assertRaises(ValueError):
            sync_client(FakeTransport(), timeout=0)
        client, _ = sync_client(FakeTransport())
        with self.assertRaises(InvalidRequestError):
            client.payments.create({**BODY, "amount": Decimal("1.001")}, max_retries=1)


class AsyncRetries(unittest.TestCase):
    def test_the_async_client_follows_the_same_policy_with_the_same_key(self) -> None:
        async def scenario() -> None:
            transport = FakeAsyncTransport(
                lost(),
                error_response(429, "rate_limited", {"retry-after": "1"}),
                json_response(201, PAYMENT, {"idempotent-replayed": "true"}),
            )
            client, sleeps = async_client(transport)
            payment = await client.payments.create(BODY)
            keys = {header(r, "Idempotency-Key") for r in transport.requests}
            self.assertEqual(len(transport.requests), 3)
            self.assertEqual(len(keys), 1)
            meta = last_response(payment)
            assert meta is not None
            self.assertEqual((meta.attempts, meta.replayed), (3, True))
            self.assertGreaterEqual(sleeps[1], 1.0)

            transport = FakeAsyncTransport(lost())
            client, _ = async_client(transport)
            with self.assertRaises(APIConnectionError):
                await client.webhook_endpoints.create({"url": "https://shop.example/hook"})
            self.assertEqual(len(transport.requests), 1)

            transport = FakeAsyncTransport(lost(), json_response(200, SELECTED))
            client, _ = async_client(transport)
            await client.checkouts.select("cs_1", SELECT)
            keys = [header(r, "Idempotency-Key") for r in transport.requests]
            self.assertEqual(len(keys), 2)
            self.assertEqual(keys[0], keys[1])
            self.assertRegex(keys[0] or "", r"^tributary-python-")

        asyncio.run(scenario())


if __name__ == "__main__":
    unittest.main()
