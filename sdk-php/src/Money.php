<?php

declare(strict_types=1);

namespace Tributary;

use Tributary\Exception\InvalidAmountException;
use Tributary\Generated\Currencies;

/**
 * An exact amount of a currency, held as an integer of minor units (cents, sen…); never a float.
 *
 * On the wire Tributary writes amounts as JSON numbers in major units (`150000.00` IDR, `10.5`
 * USD). Money parses that decimal text exactly, with the same rules as the API (src/lib/money.ts):
 * at most the currency's ISO 4217 minor-unit digits (`10.005` USD is refused, never rounded),
 * `10.1` and `10.10` are the same amount, and at most 15 significant digits.
 *
 * ```php
 * $price = Money::of('150000.00', 'IDR');
 * $price->amount();      // "150000.00"
 * $price->minorUnits();  // 15000000
 * Money::of('10.1', 'USD')->equals(Money::of('10.10', 'USD')); // true
 * ```
 */
final class Money
{
    /** The largest amount the API accepts, in minor units (15 digits, src/lib/money.ts). */
    public const MAX_MINOR_UNITS = 999_999_999_999_999;

    /** A JSON number: the grammar the API's amounts are written in. */
    private const JSON_NUMBER = '/^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/D';
    /** Exponents beyond this cannot be a valid amount; refusing them early bounds the work. */
    private const MAX_EXPONENT_MAGNITUDE = 40;

    private function __construct(public readonly string $currency, private readonly int $minor)
    {
    }

    /**
     * Parses an amount in major units: a decimal string (`'150000.00'`, `'10.5'`) or an int.
     * Floats are refused: `0.1 + 0.2` is not `0.3`, and money must not depend on it.
     *
     * @param numeric-string|int $amount
     * @throws InvalidAmountException
     */
    public static function of(mixed $amount, string $currency): self
    {
        if (is_float($amount)) {
            throw self::floatRefused();
        }
        if (!is_int($amount) && !is_string($amount)) {
            throw new InvalidAmountException(
                'amount_not_a_number',
                'An amount must be a decimal string or an integer.',
            );
        }
        $digits = self::minorUnitDigits($currency);
        return new self($currency, self::parseMinor((string) $amount, $digits, $currency));
    }

    /** @internal The refusal of a binary float where an amount is expected. */
    public static function floatRefused(): InvalidAmountException
    {
        return new InvalidAmountException(
            'amount_is_float',
            'Pass amounts as decimal strings (\'10.10\') or integers, never floats: '
            . 'a float cannot hold most decimals exactly.',
        );
    }

    /** An amount from its integer of minor units: `Money::ofMinor(1010, 'USD')` is 10.10 USD. */
    public static function ofMinor(int $minor, string $currency): self
    {
        self::minorUnitDigits($currency);
        if (abs($minor) > self::MAX_MINOR_UNITS) {
            throw new InvalidAmountException('amount_too_large', 'The amount has more than 15 significant digits.');
        }
        return new self($currency, $minor);
    }

    /** ISO 4217 minor-unit digits: 2 for IDR and USD, 0 for JPY and VND, 3 for KWD. */
    public static function minorUnitDigits(string $currency): int
    {
        $digits = Currencies::MINOR_UNITS[$currency] ?? null;
        if ($digits === null) {
            throw new InvalidAmountException(
                'unknown_currency',
                "'$currency' is not an active ISO 4217 currency code (upper case).",
            );
        }
        return $digits;
    }

    /** The amount in minor units (an exact integer). */
    public function minorUnits(): int
    {
        return $this->minor;
    }

    /**
     * The exact decimal text in major units with all of the currency's minor-unit digits:
     * `"150000.00"` IDR, `"10.10"` USD, `"5000"` JPY. This is also the text sent as the JSON number.
     */
    public function amount(): string
    {
        $digits = self::minorUnitDigits($this->currency);
        $sign = $this->minor < 0 ? '-' : '';
        $raw = str_pad((string) abs($this->minor), $digits + 1, '0', STR_PAD_LEFT);
        if ($digits === 0) {
            return $sign . $raw;
        }
        return $sign . substr($raw, 0, -$digits) . '.' . substr($raw, -$digits);
    }

    public function equals(self $other): bool
    {
        return $this->currency === $other->currency && $this->minor === $other->minor;
    }

    public function isPositive(): bool
    {
        return $this->minor > 0;
    }

    /** `"150000.00 IDR"`, for logs and messages. */
    public function __toString(): string
    {
        return $this->amount() . ' ' . $this->currency;
    }

    /**
     * The exact value of a JSON number's text as minor units of a currency with `$digits` minor
     * digits. Mirrors parseMajorAmount of src/lib/money.ts (negative amounts are allowed here:
     * some figures of a response, such as a net, can be below zero).
     */
    private static function parseMinor(string $text, int $digits, string $currency): int
    {
        if (preg_match(self::JSON_NUMBER, $text, $m) !== 1) {
            throw new InvalidAmountException('amount_not_a_number', "'$text' is not a decimal number.");
        }
        [$sign, $intPart, $fraction, $exponentText] = [$m[1], $m[2], $m[3] ?? '', $m[4] ?? ''];
        $exponent = $exponentText === '' ? 0 : (int) $exponentText;
        if (strlen(ltrim($exponentText, '+-0')) > 3 || abs($exponent) > self::MAX_EXPONENT_MAGNITUDE) {
            if (trim($intPart . $fraction, '0') === '') {
                return 0;
            }
            $tooSmall = str_starts_with($exponentText, '-');
            throw $tooSmall
                ? new InvalidAmountException(
                    'amount_too_precise',
                    "$currency amounts have at most $digits fractional digits.",
                )
                : new InvalidAmountException('amount_too_large', 'The amount has more than 15 significant digits.');
        }
        // Value = digits / 10^scale. Trailing zeros of the fraction carry no value.
        $fraction = rtrim($fraction, '0');
        $significant = ltrim($intPart . $fraction, '0');
        $scale = strlen($fraction) - $exponent;
        if ($significant === '') {
            return 0;
        }
        while ($scale > 0 && str_ends_with($significant, '0')) {
            $significant = substr($significant, 0, -1);
            $scale -= 1;
        }
        if ($scale > $digits) {
            throw new InvalidAmountException(
                'amount_too_precise',
                "$currency amounts have at most $digits fractional digits: '$text'.",
            );
        }
        $shift = $digits - $scale;
        if (strlen($significant) + $shift > 15) {
            throw new InvalidAmountException('amount_too_large', "'$text' has more than 15 significant digits.");
        }
        $minor = (int) ($significant . str_repeat('0', $shift));
        return $sign === '-' ? -$minor : $minor;
    }
}
