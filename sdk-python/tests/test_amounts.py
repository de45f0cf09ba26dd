"""Amounts are exact decimals: checked against the currency's minor units before sending, written
as the Decimal's own digits, parsed from the answer's text, never through a float."""

from __future__ import annotations

import json
import unittest
from decimal import Decimal

from support import PAYMENT, FakeTransport, json_response, sync_client

from tributary import InvalidRequestError, amounts, check_amount


class CheckAmount(unittest.TestCase):
    def refused(self, amount: object, currency: str | None, issue: str) -> None:
        with self.assertRaises(InvalidRequestError) as caught:
            check_amount(amount, currency)
        error = caught.exception
        self.assertEqual((error.code, error.param, error.http_status), ("invalid_request", "amount", None))
        self.assertEqual(error.details[0]["issue"], issue)

    def test_digits_beyond_the_minor_units_are_refused(self) -> None:
        self.refused(Decimal("10.005"), "USD", "amount_too_precise")
        self.refused(Decimal("100.5"), "JPY", "amount_too_precise")
        self.refused(Decimal("5000.1"), "VND", "amount_too_precise")
        self.refused(Decimal("1.2345"), "KWD", "amount_too_precise")
        self.refused(Decimal("1E-7"), "USD", "amount_too_precise")

    def test_trailing_zeros_carry_no_value(self) -> None:
        self.assertEqual(check_amount(Decimal("10.1"), "USD"), check_amount(Decimal("10.10"), "USD"))
        self.assertEqual(check_amount(Decimal("10.100"), "USD"), Decimal("10.1"))
        self.assertEqual(check_amount(Decimal("100.0"), "JPY"), 100)
        self.assertEqual(check_amount(Decimal("1E+3"), "VND"), 1000)
        self.assertEqual(check_amount(Decimal("1.234"), "KWD"), Decimal("1.234"))
        self.assertEqual(check_amount(150000, "IDR"), Decimal("150000"))

    def test_non_positive_and_non_finite_amounts_are_refused(self) -> None:
        self.refused(Decimal(0), "USD", "amount_not_positive")
        self.refused(Decimal("-0.01"), "USD", "amount_not_positive")
        self.refused(-5, "IDR", "amount_not_positive")
        self.refused(Decimal("NaN"), "USD", "amount_not_a_number")
        self.refused(Decimal("Infinity"), "USD", "amount_not_a_number")

    def test_fifteen_significant_digits_of_minor_units_at_most(self) -> None:
        self.assertEqual(check_amount(Decimal("9999999999999.99"), "IDR"), Decimal("9999999999999.99"))
        self.refused(Decimal("10000000000000.00"), "IDR", "amount_too_large")
        self.refused(Decimal("1000000000000000"), "JPY", "amount_too_large")

    def test_floats_and_other_types_are_programming_errors(self) -> None:
        for value in (10.1, 0.1 + 0.2, True, "10.10", None):
            with self.assertRaises(TypeError, msg=repr(value)):
                check_amount(value, "USD")

    def test_an_unknown_currency_is_left_to_the_server(self) -> None:
        # A refund names no currency; a currency newer than this SDK is the server's to judge.
        self.assertEqual(check_amount(Decimal("10.005"), None), Decimal("10.005"))
        self.assertEqual(check_amount(Decimal("10.005"), "XYZ"), Decimal("10.005"))


class Encoding(unittest.TestCase):
    def test_a_decimal_is_written_with_exactly_its_digits(self) -> None:
        self.assertEqual(amounts.dumps({"amount": Decimal("150000.00")}), '{"amount":150000.00}')
        self.assertEqual(amounts.dumps({"amount": Decimal("10.1")}), '{"amount":10.1}')
        self.assertEqual(amounts.dumps({"amount": Decimal("0.1")}), '{"amount":0.1}')
        self.assertEqual(amounts.dumps({"amount": Decimal("1E+2")}), '{"amount":100}')
        self.assertEqual(
            amounts.dumps({"amount": Decimal("12345678901234.56")}), '{"amount":12345678901234.56}'
        )
        self.assertEqual(
            json.loads(amounts.dumps({"amount": Decimal("10.10")}), parse_float=Decimal)["amount"],
            Decimal("10.10"),
        )

    def test_other_json_values(self) -> None:
        body = {"s": 'é\n"', "n": None, "t": True, "f": False, "i": 3, "l": [1, {"k": "v"}], "m": {"a": "b"}}
        self.assertEqual(json.loads(amounts.dumps(body)), body)

    def test_floats_and_non_numbers_are_never_sent(self) -> None:
        with self.assertRaises(TypeError):
            amounts.dumps({"amount": 10.1})
        with self.assertRaises(TypeError):
            amounts.dumps({"metadata": {"nested": 0.5}})
        with self.assertRaises(ValueError):
            amounts.dumps({"amount": Decimal("NaN")})
        with self.assertRaises(TypeError):
            amounts.dumps({1: "non-string key"})


class Decoding(unittest.TestCase):
    def test_money_is_decimal_with_the_currency_minor_units_and_counts_stay_int(self) -> None:
        parsed = amounts.loads('{"amount": 150000, "currency": "IDR", "amount_refunded": 0, "version": 3}')
        self.assertEqual(parsed["amount"], Decimal("150000"))
        self.assertEqual(str(parsed["amount"]), "150000.00")
        self.assertEqual(str(parsed["amount_refunded"]), "0.00")
        self.assertEqual(parsed["version"], 3)
        self.assertIs(type(parsed["version"]), int)
        self.assertEqual(str(amounts.loads('{"amount": 10.1, "currency": "USD"}')["amount"]), "10.10")
        self.assertEqual(str(amounts.loads('{"amount": 5000, "currency": "VND"}')["amount"]), "5000")

    def test_fractions_are_parsed_from_their_text(self) -> None:
        parsed = amounts.loads('{"fee": 0.1, "net": 0.2, "gross": 12345678901234.56}')
        self.assertEqual(parsed["fee"] + parsed["net"], Decimal("0.3"))  # 0.30000000000000004 as floats
        self.assertEqual(parsed["gross"], Decimal("12345678901234.56"))

    def test_nested_objects_use_the_nearest_currency(self) -> None:
        parsed = amounts.loads(
            '{"amount": 100, "currency": "USD", "late_payment": {"amount": 5},'
            ' "report": {"currency": "JPY", "gross": 7}, "lines": [{"fee": 1}]}'
        )
        self.assertEqual(str(parsed["late_payment"]["amount"]), "5.00")
        self.assertEqual(str(parsed["report"]["gross"]), "7")
        self.assertEqual(str(parsed["lines"][0]["fee"]), "1.00")

    def test_an_amount_finer_than_its_currency_is_shown_as_sent(self) -> None:
        # Never rounded: only the notation changes, never the value.
        self.assertEqual(str(amounts.loads('{"amount": 10.005, "currency": "USD"}')["amount"]), "10.005")
        self.assertEqual(str(amounts.loads('{"amount": 10, "currency": "XYZ"}')["amount"]), "10")


class OnTheWire(unittest.TestCase):
    def test_create_sends_the_decimal_digits_and_refuses_before_sending(self) -> None:
        transport = FakeTransport(json_response(201, PAYMENT))
        client, _ = sync_client(transport)
        payment = client.payments.create(
            {"amount": Decimal("150000.00"), "currency": "IDR", "reference_no": "o-1"}
        )
        self.assertEqual(
            transport.requests[0].body, b'{"amount":150000.00,"currency":"IDR","reference_no":"o-1"}'
        )
        self.assertEqual(payment["amount"], Decimal("150000.00"))
        with self.assertRaises(InvalidRequestError):
            client.payments.create({"amount": Decimal("10.005"), "currency": "USD", "reference_no": "o-2"})
        with self.assertRaises(TypeError):
            client.payments.create({"amount": 10.5, "currency": "USD", "reference_no": "o-3"})  # type: ignore[typeddict-item]
        self.assertEqual(len(transport.requests), 1, "nothing sent for a refused amount")

    def test_query_amounts_are_checked_and_written_exactly(self) -> None:
        transport = FakeTransport(json_response(200, {"object": "list", "data": []}))
        client, _ = sync_client(transport)
        client.payment_methods.list({"amount": Decimal("150000.00"), "currency": "IDR"})
        self.assertTrue(transport.requests[0].url.endswith("/payment_method?amount=150000.00&currency=IDR"))
        with self.assertRaises(InvalidRequestError):
            client.payment_methods.list({"amount": Decimal("1.5"), "currency": "JPY"})

    def test_refund_amounts_without_a_currency_are_checked_for_sign_and_type(self) -> None:
        transport = FakeTransport(json_response(201, {"id": "ref_1", "amount": 50000, "currency": "IDR"}))
        client, _ = sync_client(transport)
        refund = client.refunds.create("pay_1", {"amount": Decimal("50000")})
        self.assertEqual(transport.requests[0].body, b'{"amount":50000}')
        self.assertEqual(str(refund["amount"]), "50000.00")
        with self.assertRaises(InvalidRequestError):
            client.refunds.create("pay_1", {"amount": Decimal("-1")})


if __name__ == "__main__":
    unittest.main()
