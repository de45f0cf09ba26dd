<?php

declare(strict_types=1);

namespace Tributary\Internal;

/**
 * @internal JSON without binary floats, both ways.
 *
 * PHP's json_decode turns `10.1` into a float, which cannot hold most decimals exactly, and
 * json_encode writes floats from their binary value. Amounts must never pass through a float, so:
 * - decode() first wraps every JSON number that has a fraction or an exponent in quotes, so
 *   json_decode returns its exact text as a string; integers stay ints (big ones become strings);
 * - encode() writes a JsonNumber as its exact text and refuses floats outright.
 */
final class Json
{
    /** The grammar of a JSON number. */
    private const NUMBER = '/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/D';

    /**
     * Decodes JSON with every fractional or exponent number as its exact text.
     *
     * A scan over the text, outside strings only (a digit inside a string is never touched), in
     * linear time: the byte searches run in C, and no regular expression backtracks over a long
     * body. A number token that is not valid JSON is left as it is, so json_decode still refuses it.
     *
     * @throws \JsonException
     */
    public static function decode(string $text): mixed
    {
        $out = '';
        $length = strlen($text);
        for ($i = 0; $i < $length;) {
            $plain = strcspn($text, '"-0123456789', $i);
            $out .= substr($text, $i, $plain);
            $i += $plain;
            if ($i >= $length) {
                break;
            }
            if ($text[$i] === '"') {
                $end = self::stringEnd($text, $i);
                $out .= substr($text, $i, $end - $i);
                $i = $end;
                continue;
            }
            $token = substr($text, $i, strspn($text, '-+.eE0123456789', $i));
            $i += strlen($token);
            $exact = strpbrk($token, '.eE') !== false && preg_match(self::NUMBER, $token) === 1;
            $out .= $exact ? '"' . $token . '"' : $token;
        }
        return json_decode($out, true, 512, JSON_BIGINT_AS_STRING | JSON_THROW_ON_ERROR);
    }

    /** The offset just after the JSON string that starts at `$start` (or the end of an unterminated one). */
    private static function stringEnd(string $text, int $start): int
    {
        for ($from = $start + 1;;) {
            $quote = strpos($text, '"', $from);
            if ($quote === false) {
                return strlen($text);
            }
            $backslashes = 0;
            for ($k = $quote - 1; $k > $start && $text[$k] === '\\'; $k -= 1) {
                $backslashes += 1;
            }
            if ($backslashes % 2 === 0) {
                return $quote + 1; // not escaped: the string ends here
            }
            $from = $quote + 1;
        }
    }

    /**
     * @param list<string> $objectKeys Top-level keys whose empty array is sent as `{}` (e.g. `metadata`).
     * @throws \InvalidArgumentException on a float or a value JSON cannot hold
     */
    public static function encode(mixed $value, array $objectKeys = []): string
    {
        if (is_array($value) && ($value === [] || !array_is_list($value))) {
            return self::object($value, $objectKeys);
        }
        return self::value($value);
    }

    private static function value(mixed $value): string
    {
        return match (true) {
            $value === null, is_bool($value), is_int($value) => json_encode($value, JSON_THROW_ON_ERROR),
            is_string($value) => self::string($value),
            is_float($value) => throw new \InvalidArgumentException(
                'Tributary: floats are not sent (amounts must be exact): '
                . 'pass a decimal string such as \'10.10\', or an int',
            ),
            $value instanceof JsonNumber => $value->text,
            $value instanceof \DateTimeInterface => self::string(self::dateTime($value)),
            $value instanceof \JsonSerializable => self::value($value->jsonSerialize()),
            $value instanceof \stdClass => self::object(get_object_vars($value), []),
            is_array($value) => array_is_list($value)
                ? '[' . implode(',', array_map(self::value(...), $value)) . ']'
                : self::object($value, []),
            default => throw new \InvalidArgumentException(
                'Tributary: cannot send a ' . get_debug_type($value) . ' as JSON',
            ),
        };
    }

    /**
     * @param array<array-key, mixed> $fields
     * @param list<string> $objectKeys
     */
    private static function object(array $fields, array $objectKeys): string
    {
        $members = [];
        foreach ($fields as $key => $field) {
            $text = $field === [] && in_array($key, $objectKeys, true) ? '{}' : self::value($field);
            $members[] = self::string((string) $key) . ':' . $text;
        }
        return '{' . implode(',', $members) . '}';
    }

    private static function string(string $value): string
    {
        try {
            return json_encode($value, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new \InvalidArgumentException('Tributary: strings must be valid UTF-8', 0, $e);
        }
    }

    /** RFC 3339 in UTC with milliseconds, as the API writes times (`2026-11-21T10:00:00.000Z`). */
    public static function dateTime(\DateTimeInterface $at): string
    {
        return \DateTimeImmutable::createFromInterface($at)
            ->setTimezone(new \DateTimeZone('UTC'))
            ->format('Y-m-d\TH:i:s.v\Z');
    }
}
