"""Every answer that is not 2xx becomes the typed error of its code (the error catalogue)."""

from __future__ import annotations

import unittest
from email.utils import format_datetime
from datetime import datetime, timedelta, timezone

from support import FakeTransport, HttpResponse, error_response, json_response, sync_client

from tributary import (
    ERROR_STATUS,
    APIError,
    AuthenticationError,
    ConflictError,
    IdempotencyError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
    TributaryError,
    UnprocessableError,
)
from tributary.errors import error_from_response, parse_retry_after

BY_STATUS = {
    400: InvalidRequestError,
    401: AuthenticationError,
    404: NotFoundError,
    405: InvalidRequestError,
    409: ConflictError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: UnprocessableError,
    429: RateLimitError,
    500: APIError,
    503: ServiceUnavailableError,
}


def body(code: str, **extra: object) -> dict[str, object]:
    return {"code": code, "message": "m", "details": [], "request_id": "req_1", **extra}


class Mapping(unittest.TestCase):
    def test_every_catalogue_code_maps_to_its_class(self) -> None:
        self.assertEqual(len(ERROR_STATUS), 35)
        for code, status in ERROR_STATUS.items():
            error = error_from_response(status, body(code), {}, None)
            expected = (
                IdempotencyError
                if code.startswith("idempotency_request") or code == "idempotency_key_reused"
                else BY_STATUS[status]
            )
            self.assertIs(type(error), expected, code)
            self.assertIsInstance(error, TributaryError)
            self.assertEqual((error.code, error.http_status, error.request_id), (code, status, "req_1"))

    def test_a_code_newer_than_the_sdk_is_classed_by_its_status(self) -> None:
        self.assertIs(type(error_from_response(409, body("brand_new_conflict"), {}, None)), ConflictError)
        self.assertIs(type(error_from_response(418, body("teapot"), {}, None)), InvalidRequestError)
        self.assertIs(type(error_from_response(502, body("gateway"), {}, None)), APIError)

    def test_an_answer_without_an_error_body(self) -> None:
        error = error_from_response(502, "<html>bad gateway</html>", {"request-id": "req_h"}, None)
        self.assertIs(type(error), APIError)
        self.assertEqual((error.code, error.request_id), ("internal_error", "req_h"))
        error = error_from_response(400, None, {}, None)
        self.assertEqual((type(error), error.code), (InvalidRequestError, "invalid_response"))

    def test_param_and_details_name_the_first_field(self) -> None:
        details = [
            {"object": "payment", "id": "pay_1"},
            {"field": "amount", "issue": "amount_too_precise", "message": "m"},
        ]
        error = error_from_response(400, body("invalid_request", details=details), {}, "key-1")
        self.assertEqual(error.param, "amount")
        self.assertEqual(error.details, details)
        self.assertEqual(error.idempotency_key, "key-1")
        self.assertIsNone(error_from_response(404, body("resource_not_found"), {}, None).param)

    def test_retry_after_in_seconds_or_as_a_date(self) -> None:
        error = error_from_response(429, body("rate_limited"), {"retry-after": "7"}, None)
        assert isinstance(error, RateLimitError)
        self.assertEqual(error.retry_after, 7.0)
        at = datetime.now(timezone.utc) + timedelta(seconds=30)
        seconds = parse_retry_after(format_datetime(at, usegmt=True))
        assert seconds is not None
        self.assertTrue(28 <= seconds <= 30, seconds)
        self.assertIsNone(parse_retry_after("soon"))
        self.assertIsNone(parse_retry_after(None))

    def test_str_and_repr_quote_the_request_id_and_never_the_key(self) -> None:
        transport = FakeTransport(error_response(401, "unauthorized"))
        client, _ = sync_client(transport)
        with self.assertRaises(AuthenticationError) as caught:
            client.payments.list()
        text = f"{caught.exception} {caught.exception!r} {client!r}"
        self.assertIn("req_ERR", text)
        self.assertIn("unauthorized", text)
        self.assertNotIn("sk_test_unit", text)


class ThroughTheClient(unittest.TestCase):
    def test_answers_become_typed_errors_with_their_request(self) -> None:
        transport = FakeTransport(
            error_response(409, "reference_no_conflict", details=[{"object": "payment", "id": "pay_9"}]),
            error_response(422, "idempotency_key_reused"),
            error_response(404, "resource_not_found"),
        )
        client, _ = sync_client(transport)
        with self.assertRaises(ConflictError) as conflict:
            client.payments.create({"amount": 1, "currency": "IDR", "reference_no": "r"})
        self.assertEqual(conflict.exception.details[0]["id"], "pay_9")
        self.assertTrue((conflict.exception.idempotency_key or "").startswith("tributary-python-"))
        with self.assertRaises(IdempotencyError):
            client.payments.create({"amount": 1, "currency": "IDR", "reference_no": "r"}, idempotency_key="k")
        with self.assertRaises(NotFoundError) as missing:
            client.refunds.retrieve("ref_x")
        self.assertEqual((missing.exception.http_status, missing.exception.idempotency_key), (404, None))

    def test_a_2xx_answer_that_is_not_json_is_an_api_error(self) -> None:
        transport = FakeTransport(json_response(200, "{not json"))
        client, _ = sync_client(transport)
        with self.assertRaises(APIError) as caught:
            client.payments.retrieve("pay_1")
        self.assertEqual((caught.exception.code, caught.exception.http_status), ("invalid_response", 200))

    def test_an_error_answer_that_is_not_json(self) -> None:
        transport = FakeTransport(HttpResponse(500, {"content-type": "text/plain"}, b"oops"))
        client, _ = sync_client(transport)
        with self.assertRaises(APIError) as caught:
            client.payments.retrieve("pay_1")
        self.assertEqual(caught.exception.code, "internal_error")


if __name__ == "__main__":
    unittest.main()
