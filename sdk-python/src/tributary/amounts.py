"""Exact money: amounts are ``decimal.Decimal`` in and out, never binary floats.

The API takes and gives amounts as JSON numbers in major units with at most the currency's ISO 4217
minor-unit digits (``150000.00`` IDR, ``10.5`` USD, ``5000`` VND). The SDK parses every number of an
answer from its exact text (``parse_float=Decimal``; the money fields, :data:`DECIMAL_FIELDS`, are
Decimal even when written without a fraction) and writes a Decimal's own digits into the request
body, so no amount ever passes through a float.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ._generated import DECIMAL_FIELDS, MINOR_UNITS
from .errors import InvalidRequestError

__all__ = ["DECIMAL_FIELDS", "MINOR_UNITS", "check_amount", "dumps", "loads", "minor_units"]

#: The API's ceiling: 15 significant digits of minor units (src/lib/money.ts, MAX_AMOUNT_MINOR).
MAX_AMOUNT_MINOR = 999_999_999_999_999


def minor_units(currency: str) -> int | None:
    """ISO 4217 minor-unit digits of a currency (2 for IDR and USD, 0 for JPY); None if unknown."""
    return MINOR_UNITS.get(currency)


def _refuse(field: str, issue: str, message: str) -> InvalidRequestError:
    # The same shape as the server's answer to the same mistake, so one `except` handles both.
    return InvalidRequestError(
        "The request has invalid fields.",
        code="invalid_request",
        details=[{"field": field, "issue": issue, "message": message}],
    )


def check_amount(amount: object, currency: str | None, field: str = "amount") -> Decimal:
    """The amount as an exact Decimal, or an error before anything is sent.

    ``amount`` must be a ``Decimal`` or an ``int``: a ``float`` cannot hold most decimal amounts
    (``0.1`` is 0.1000000000000000055…) and is refused with TypeError. With a known ``currency`` the
    number of fractional digits is checked against its minor units, trailing zeros aside (``10.1``
    and ``10.10`` USD are the same amount, ``10.005`` USD is refused, JPY and VND take none).
    Raises :class:`InvalidRequestError` with the server's ``issue`` codes: ``amount_not_a_number``,
    ``amount_not_positive``, ``amount_too_precise``, ``amount_too_large``.
    """
    if isinstance(amount, bool) or not isinstance(amount, (Decimal, int)):
        raise TypeError(
            f"Tributary: {field} must be a decimal.Decimal or an int, not {type(amount).__name__} "
            '(write Decimal("10.50"), never a float)'
        )
    value = Decimal(amount)
    if not value.is_finite():
        raise _refuse(field, "amount_not_a_number", f"{field} must be a finite number")
    if value <= 0:
        raise _refuse(field, "amount_not_positive", f"{field} must be greater than 0")
    digits = minor_units(currency) if currency is not None else None
    if digits is None:
        # Unknown here (a refund names no currency; a currency newer than this SDK): the server checks.
        return value
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)  # finite
    if -exponent > digits:
        raise _refuse(
            field,
            "amount_too_precise",
            f"{currency} amounts have at most {digits} fractional digits",
        )
    if value.scaleb(digits) > MAX_AMOUNT_MINOR:
        raise _refuse(field, "amount_too_large", f"{field} has more than 15 significant digits")
    return value


def _number_text(value: Decimal) -> str:
    if not value.is_finite():
        raise ValueError(f"Tributary: {value} is not a JSON number")
    # Positional notation keeps every digit the caller wrote ("10.10" stays "10.10"); JSON also
    # allows exponents, but the plain form is what the API documents and logs.
    return format(value, "f")


def _encode(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(json.dumps(value))
    elif isinstance(value, Decimal):
        out.append(_number_text(value))
    elif isinstance(value, int):
        out.append(str(int(value)))
    elif isinstance(value, float):
        raise TypeError("Tributary: request bodies take decimal.Decimal for numbers, never a float")
    elif isinstance(value, Mapping):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if not isinstance(key, str):
                raise TypeError(f"Tributary: object keys must be strings, not {type(key).__name__}")
            if i > 0:
                out.append(",")
            out.append(json.dumps(key))
            out.append(":")
            _encode(item, out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i > 0:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        raise TypeError(f"Tributary: cannot send a {type(value).__name__} as JSON")


def dumps(value: Any) -> str:
    """JSON text of a request body; a Decimal is written as its exact digits, a float refused."""
    out: list[str] = []
    _encode(value, out)
    return "".join(out)


def _with_minor_units(value: Decimal, currency: str | None) -> Decimal:
    digits = minor_units(currency) if currency is not None else None
    if digits is None:
        return value
    try:
        quantized = value.quantize(Decimal(1).scaleb(-digits))
    except InvalidOperation:
        return value
    # Only a change of notation (150000 → 150000.00), never of value.
    return quantized if quantized == value else value


def _decimalize(value: Any, currency: str | None) -> Any:
    if isinstance(value, list):
        return [_decimalize(item, currency) for item in value]
    if not isinstance(value, dict):
        return value
    own = value.get("currency")
    if isinstance(own, str):
        currency = own
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in DECIMAL_FIELDS and isinstance(item, (int, Decimal)) and not isinstance(item, bool):
            out[key] = _with_minor_units(Decimal(item), currency)
        else:
            out[key] = _decimalize(item, currency)
    return out


def loads(text: str | bytes) -> Any:
    """Parses an API answer or a webhook body: fractions as Decimal, money fields always Decimal.

    A money field is shown with its currency's minor units when the object (or one around it) names
    the currency: ``150000`` IDR comes back as ``Decimal("150000.00")``. Counts stay ``int``.
    """
    return _decimalize(json.loads(text, parse_float=Decimal), None)
