<?php

declare(strict_types=1);

namespace Tributary\Internal;

use Tributary\Model;

/**
 * @internal Reads one field of a decoded JSON object for a generated model's constructor.
 *
 * A field that is absent or null gives null when the model declares it nullable (optional
 * fields are nullable); otherwise it is an UnexpectedValueException, which the client reports
 * as an `invalid_response`. Enum values are not checked: new ones may appear, as new event
 * types may, and an old SDK must keep working.
 */
final class Decode
{
    /** @param array<string, mixed> $data */
    public static function string(array $data, string $key, bool $nullable = false): ?string
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null || is_string($value)) {
            return $value;
        }
        throw self::unexpected($key, 'a string', $value);
    }

    /** @param array<string, mixed> $data */
    public static function int(array $data, string $key, bool $nullable = false): ?int
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null || is_int($value)) {
            return $value;
        }
        throw self::unexpected($key, 'an integer', $value);
    }

    /** @param array<string, mixed> $data */
    public static function bool(array $data, string $key, bool $nullable = false): ?bool
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null || is_bool($value)) {
            return $value;
        }
        throw self::unexpected($key, 'a boolean', $value);
    }

    /**
     * An amount: the exact decimal text of the JSON number (Json::decode keeps fractional numbers
     * as their text; integers arrive as ints and are written back as text).
     *
     * @param array<string, mixed> $data
     * @return ?numeric-string
     */
    public static function decimal(array $data, string $key, bool $nullable = false): ?string
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null) {
            return null;
        }
        if (is_int($value)) {
            return (string) $value;
        }
        if (is_string($value) && preg_match('/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/D', $value) === 1) {
            return $value;
        }
        throw self::unexpected($key, 'a decimal number', $value);
    }

    /**
     * A JSON object of free keys (metadata, summary) or an untyped value, as decoded.
     *
     * @param array<string, mixed> $data
     * @return ?array<array-key, mixed>
     */
    public static function array(array $data, string $key, bool $nullable = false): ?array
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null || is_array($value)) {
            return $value;
        }
        throw self::unexpected($key, 'an object or array', $value);
    }

    /** @param array<string, mixed> $data */
    public static function mixed(array $data, string $key): mixed
    {
        return $data[$key] ?? null;
    }

    /**
     * @param array<string, mixed> $data
     * @return ?list<string>
     */
    public static function stringList(array $data, string $key, bool $nullable = false): ?array
    {
        $list = self::list($data, $key, $nullable);
        foreach ($list ?? [] as $item) {
            if (!is_string($item)) {
                throw self::unexpected($key, 'a list of strings', $item);
            }
        }
        return $list;
    }

    /**
     * @param array<string, mixed> $data
     * @return ?list<mixed>
     */
    public static function list(array $data, string $key, bool $nullable = false): ?array
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null || (is_array($value) && array_is_list($value))) {
            return $value;
        }
        throw self::unexpected($key, 'a list', $value);
    }

    /**
     * @template T of Model
     * @param array<string, mixed> $data
     * @param class-string<T> $class
     * @return ?T
     */
    public static function model(array $data, string $key, string $class, bool $nullable = false): ?Model
    {
        $value = self::value($data, $key, $nullable);
        if ($value === null) {
            return null;
        }
        return self::object($key, $class, $value);
    }

    /**
     * @template T of Model
     * @param array<string, mixed> $data
     * @param class-string<T> $class
     * @return ?list<T>
     */
    public static function modelList(array $data, string $key, string $class, bool $nullable = false): ?array
    {
        $list = self::list($data, $key, $nullable);
        return $list === null ? null : array_map(
            static fn (mixed $item): Model => self::object($key, $class, $item),
            $list,
        );
    }

    /**
     * One of several object shapes told apart by a discriminator field (`instructions.type`). A
     * value this SDK does not know yet (a newer API) is returned as the decoded array.
     *
     * @param array<string, mixed> $data
     * @param array<string, class-string<Model>> $variants
     * @return Model|array<string, mixed>|null
     */
    public static function oneOf(
        array $data,
        string $key,
        string $discriminator,
        array $variants,
        bool $nullable = false,
    ): Model|array|null {
        $value = self::value($data, $key, $nullable);
        if ($value === null) {
            return null;
        }
        if (!is_array($value)) {
            throw self::unexpected($key, 'an object', $value);
        }
        $tag = $value[$discriminator] ?? null;
        $class = is_string($tag) ? ($variants[$tag] ?? null) : null;
        return $class === null ? $value : self::object($key, $class, $value);
    }

    /**
     * @template T of Model
     * @param class-string<T> $class
     * @return T
     */
    private static function object(string $key, string $class, mixed $value): Model
    {
        if (!is_array($value) || ($value !== [] && array_is_list($value))) {
            throw self::unexpected($key, 'an object', $value);
        }
        return $class::fromArray($value);
    }

    /** @param array<string, mixed> $data */
    private static function value(array $data, string $key, bool $nullable): mixed
    {
        $value = $data[$key] ?? null;
        if ($value === null && !$nullable) {
            throw new \UnexpectedValueException("field '$key' is missing or null");
        }
        return $value;
    }

    private static function unexpected(string $key, string $expected, mixed $value): \UnexpectedValueException
    {
        return new \UnexpectedValueException("field '$key' should be $expected, not " . get_debug_type($value));
    }
}
