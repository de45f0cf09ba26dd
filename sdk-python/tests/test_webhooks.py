"""Webhook verification against the Standard Webhooks reference implementation's test vectors
(libraries/python/tests/test_webhooks.py and libraries/javascript/src/webhook.test.ts of
standard-webhooks/standard-webhooks: the same secret, id, payload and expected signature), plus
what Tributary's deliveries add (Decimal amounts, rotation, header shapes)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import unittest
from datetime import datetime, timezone
from decimal import Decimal

import support  # noqa: F401 - puts the package on the path

from tributary import WebhookVerificationError, webhooks

# The reference vectors.
SECRET = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
MSG_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
PAYLOAD = '{"test": 2432232314}'
SIGNED_AT = 1614265330
EXPECTED = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
TOLERANCE = 300


def signed(at: int, payload: str = PAYLOAD, secret: str = SECRET) -> dict[str, str]:
    """Headers as the reference tests build them: their own HMAC, not ours."""
    to_sign = f"{MSG_ID}.{at}.{payload}".encode()
    digest = hmac.new(base64.b64decode(secret.removeprefix("whsec_")), to_sign, hashlib.sha256).digest()
    return {
        "webhook-id": MSG_ID,
        "webhook-signature": "v1," + base64.b64encode(digest).decode(),
        "webhook-timestamp": str(at),
    }


class ReferenceVectors(unittest.TestCase):
    def refused(self, headers: dict[str, str], payload: str = PAYLOAD, now: int = SIGNED_AT) -> None:
        with self.assertRaises(WebhookVerificationError) as caught:
            webhooks.verify(payload, headers, SECRET, now=now)
        self.assertEqual(caught.exception.code, "webhook_verification_failed")

    def test_sign_function(self) -> None:
        self.assertEqual(webhooks.sign("whsec_" + SECRET, MSG_ID, SIGNED_AT, PAYLOAD), EXPECTED)
        self.assertEqual(signed(SIGNED_AT)["webhook-signature"], EXPECTED)

    def test_valid_signature_is_valid_and_returns_json(self) -> None:
        event = webhooks.verify(PAYLOAD, signed(SIGNED_AT), SECRET, now=SIGNED_AT)
        self.assertEqual(event, {"test": 2432232314})

    def test_verification_with_and_without_prefix(self) -> None:
        for secret in (SECRET, "whsec_" + SECRET):
            self.assertEqual(
                webhooks.verify(PAYLOAD, signed(SIGNED_AT), secret, now=SIGNED_AT)["test"], 2432232314
            )

    def test_missing_headers_raise(self) -> None:
        for name in ("webhook-id", "webhook-timestamp", "webhook-signature"):
            headers = signed(SIGNED_AT)
            del headers[name]
            self.refused(headers)

    def test_invalid_timestamp_raises(self) -> None:
        self.refused({**signed(SIGNED_AT), "webhook-timestamp": "hello"})

    def test_invalid_signature_raises(self) -> None:
        self.refused(
            {**signed(SIGNED_AT), "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA="}
        )
        self.refused({**signed(SIGNED_AT), "webhook-signature": "v1,dawfeoifkpqwoekfpqoekf"})

    def test_partial_signature_raises(self) -> None:
        self.refused({**signed(SIGNED_AT), "webhook-signature": EXPECTED[:8]})
        self.refused({**signed(SIGNED_AT), "webhook-signature": "v1,"})

    def test_old_and_new_timestamps_fail_just_outside_the_tolerance(self) -> None:
        self.refused(signed(SIGNED_AT - TOLERANCE - 1))
        self.refused(signed(SIGNED_AT + TOLERANCE + 1))
        # The edges themselves are inside.
        for at in (SIGNED_AT - TOLERANCE, SIGNED_AT + TOLERANCE):
            self.assertEqual(webhooks.verify(PAYLOAD, signed(at), SECRET, now=SIGNED_AT)["test"], 2432232314)

    def test_multi_sig_payload_is_valid(self) -> None:
        headers = signed(SIGNED_AT)
        headers["webhook-signature"] = " ".join(
            [
                "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
                "v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
                headers["webhook-signature"],  # the valid one
                "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=",
            ]
        )
        self.assertEqual(webhooks.verify(PAYLOAD, headers, SECRET, now=SIGNED_AT)["test"], 2432232314)

    def test_only_v1_counts(self) -> None:
        headers = signed(SIGNED_AT)
        self.refused({**headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,")})


class TributaryDeliveries(unittest.TestCase):
    SECRET = "whsec_" + base64.b64encode(b"a secret of thirty-two bytes....").decode()

    def delivery(self, body: str, at: int = SIGNED_AT) -> dict[str, str]:
        return {
            "webhook-id": "evt_1",
            "webhook-timestamp": str(at),
            "webhook-signature": webhooks.sign(self.SECRET, "evt_1", at, body),
        }

    def test_amounts_come_back_as_decimals(self) -> None:
        body = (
            '{"id":"evt_1","type":"payment.succeeded","data":{"object":{"id":"pay_1","amount":10.1,'
            '"currency":"USD","fee":0.3,"version":2},"previous_attributes":{}}}'
        )
        event = webhooks.verify(body.encode(), self.delivery(body), self.SECRET, now=SIGNED_AT)
        payment = event["data"]["object"]
        self.assertEqual(payment["amount"], Decimal("10.10"))
        self.assertEqual(str(payment["amount"]), "10.10")
        self.assertEqual(payment["fee"], Decimal("0.30"))
        self.assertIsInstance(payment["version"], int)

    def test_a_tampered_body_or_another_secret_is_refused(self) -> None:
        body = '{"id":"evt_1","type":"payment.pending"}'
        headers = self.delivery(body)
        with self.assertRaises(WebhookVerificationError):
            webhooks.verify(body.replace("pending", "succeeded"), headers, self.SECRET, now=SIGNED_AT)
        other = "whsec_" + base64.b64encode(b"another secret of 32 bytes......").decode()
        with self.assertRaises(WebhookVerificationError):
            webhooks.verify(body, headers, other, now=SIGNED_AT)

    def test_during_a_rotation_either_secret_verifies(self) -> None:
        body = '{"id":"evt_1","type":"payment.pending"}'
        new = "whsec_" + base64.b64encode(b"the new secret, thirty-two bytes").decode()
        headers = self.delivery(body)
        headers["webhook-signature"] += " " + webhooks.sign(new, "evt_1", SIGNED_AT, body)
        for secret in (self.SECRET, new):
            self.assertEqual(webhooks.verify(body, headers, secret, now=SIGNED_AT)["id"], "evt_1")

    def test_header_shapes_of_common_frameworks(self) -> None:
        body = '{"id":"evt_1","type":"payment.pending"}'
        headers = self.delivery(body)
        upper = {k.title(): v for k, v in headers.items()}  # Webhook-Id, as some servers spell them
        listed = {k: [v] for k, v in headers.items()}  # multi-value mappings
        environ = {"HTTP_" + k.upper().replace("-", "_"): v for k, v in headers.items()}  # WSGI / Django META
        for shape in (upper, listed, environ):
            self.assertEqual(webhooks.verify(body, shape, self.SECRET, now=SIGNED_AT)["id"], "evt_1")

    def test_now_as_datetime_and_custom_tolerance(self) -> None:
        body = '{"id":"evt_1"}'
        headers = self.delivery(body, SIGNED_AT)
        later = datetime.fromtimestamp(SIGNED_AT + 600, tz=timezone.utc)
        with self.assertRaises(WebhookVerificationError):
            webhooks.verify(body, headers, self.SECRET, now=later)
        self.assertEqual(webhooks.verify(body, headers, self.SECRET, now=later, tolerance=600)["id"], "evt_1")

    def test_a_body_that_is_not_an_object_is_refused_even_when_signed(self) -> None:
        for body in ("[1, 2]", "not json"):
            with self.assertRaises(WebhookVerificationError):
                webhooks.verify(body, self.delivery(body), self.SECRET, now=SIGNED_AT)

    def test_bad_secrets_and_parsed_payloads_are_programming_errors(self) -> None:
        body = '{"id":"evt_1"}'
        with self.assertRaises(ValueError):
            webhooks.verify(body, self.delivery(body), "whsec_", now=SIGNED_AT)
        with self.assertRaises(ValueError):
            webhooks.verify(body, self.delivery(body), "whsec_not base64!", now=SIGNED_AT)
        with self.assertRaises(TypeError):
            webhooks.verify({"id": "evt_1"}, self.delivery(body), self.SECRET, now=SIGNED_AT)  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
