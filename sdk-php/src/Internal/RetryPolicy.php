<?php

declare(strict_types=1);

namespace Tributary\Internal;

use Tributary\Exception\TributaryException;

/**
 * @internal When a failed try is sent again, and after how long: the policy of the Node SDK
 * (sdk/README.md, "Retries and idempotency"), so every Tributary SDK behaves alike.
 *
 * | answer                                   | retried for                          |
 * | ---------------------------------------- | ------------------------------------ |
 * | network error, lost connection, timeout  | GETs and keyed operations            |
 * | 409 `idempotency_request_in_progress`    | keyed operations                     |
 * | 429                                      | everything (refused before any work) |
 * | 503                                      | GETs and keyed operations            |
 * | connection never made                    | everything (nothing was sent)        |
 *
 * Waits grow from 0.5 s, doubling, to at most 8 s, with jitter (a random half of it taken off),
 * and never shorter than `Retry-After`. A `Retry-After` over 60 s is not waited: the error goes
 * back to the caller, who decides.
 */
final class RetryPolicy
{
    public const DEFAULT_MAX_RETRIES = 2;
    /** Bounds the retry loop whatever the caller passes. */
    public const MAX_RETRIES_CEILING = 10;
    public const INITIAL_BACKOFF_MS = 500;
    public const MAX_BACKOFF_MS = 8_000;
    public const MAX_RETRY_AFTER_MS = 60_000;

    /**
     * @param bool $safe A GET, or an operation the server deduplicates by its Idempotency-Key:
     *                   sending it twice cannot do the work twice.
     * @param bool $keyed The operation sends an Idempotency-Key.
     * @param bool $notSent The connection was never made, so nothing reached the server.
     */
    public static function isRetriable(TributaryException $error, bool $safe, bool $keyed, bool $notSent): bool
    {
        if ($notSent) {
            return true;
        }
        $status = $error->httpStatus;
        return match (true) {
            $status === null => $safe && in_array($error->errorCode, ['connection_error', 'timeout'], true),
            $status === 429 => true,
            $status === 409 => $keyed && $error->errorCode === 'idempotency_request_in_progress',
            $status === 503 => $safe,
            default => false,
        };
    }

    /**
     * How long to wait before try `$attempt + 1`, in ms.
     *
     * @param int $attempt The try that just failed (1 for the first).
     * @param ?int $retryAfterMs The server's `Retry-After`, if it sent one.
     * @param \Closure(): float $random A number in [0, 1).
     */
    public static function delayMs(int $attempt, ?int $retryAfterMs, \Closure $random): int
    {
        $exponential = min(self::INITIAL_BACKOFF_MS * 2 ** min($attempt - 1, 30), self::MAX_BACKOFF_MS);
        $backoffMs = $exponential * (0.5 + $random() * 0.5);
        // Never earlier than the server asked; a little later at random, so a crowd of throttled
        // clients does not come back in the same millisecond.
        $waitMs = $retryAfterMs === null ? $backoffMs : max($backoffMs, $retryAfterMs * (1 + $random() * 0.1));
        // Rounded to the microsecond first, so binary noise (3000 × 1.1 = 3300.0000000000005) does not add 1 ms.
        return (int) ceil(round($waitMs, 3));
    }

    /** Seconds from a `Retry-After` header (seconds or an HTTP date); null when absent or unreadable. */
    public static function parseRetryAfter(?string $value, ?int $nowSeconds = null): ?int
    {
        $value = trim((string) $value);
        if ($value === '') {
            return null;
        }
        if (preg_match('/^[0-9]{1,9}$/D', $value) === 1) {
            return (int) $value;
        }
        $at = strtotime($value);
        if ($at === false) {
            return null;
        }
        return max(0, $at - ($nowSeconds ?? time()));
    }

    public static function clampRetries(int $maxRetries): int
    {
        if ($maxRetries < 0) {
            throw new \InvalidArgumentException('Tributary: maxRetries must be a non-negative integer');
        }
        return min($maxRetries, self::MAX_RETRIES_CEILING);
    }
}
