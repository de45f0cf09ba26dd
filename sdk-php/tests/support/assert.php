<?php

declare(strict_types=1);

namespace Tributary\Tests;

/*
 * Assertions for tests/run.php. Not PHP's assert(): Debian's php.ini disables it
 * (zend.assertions = -1), and a test that cannot fail proves nothing.
 */

final class AssertionFailed extends \RuntimeException
{
}

function fail(string $message): never
{
    throw new AssertionFailed($message);
}

function assertSame(mixed $expected, mixed $actual, string $message = ''): void
{
    if ($expected !== $actual) {
        fail(($message === '' ? '' : "$message: ") . 'expected ' . var_export($expected, true) . ', got ' . var_export($actual, true));
    }
}

function assertTrue(bool $condition, string $message = 'expected true'): void
{
    if (!$condition) {
        fail($message);
    }
}

function assertMatches(string $pattern, string $actual, string $message = ''): void
{
    if (preg_match($pattern, $actual) !== 1) {
        fail(($message === '' ? '' : "$message: ") . "'$actual' does not match $pattern");
    }
}

/**
 * Runs `$fn`, which must throw a `$class`; returns it for further checks.
 *
 * @template T of \Throwable
 * @param class-string<T> $class
 * @return T
 */
function assertThrows(string $class, callable $fn, string $message = ''): \Throwable
{
    try {
        $fn();
    } catch (\Throwable $e) {
        if ($e instanceof $class) {
            return $e;
        }
        fail(($message === '' ? '' : "$message: ") . "expected $class, got " . get_class($e) . ': ' . $e->getMessage());
    }
    fail(($message === '' ? '' : "$message: ") . "expected $class, nothing was thrown");
}
