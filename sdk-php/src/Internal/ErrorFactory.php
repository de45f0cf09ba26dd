<?php

declare(strict_types=1);

namespace Tributary\Internal;

use Tributary\Exception\ApiException;
use Tributary\Exception\AuthenticationException;
use Tributary\Exception\ConflictException;
use Tributary\Exception\IdempotencyException;
use Tributary\Exception\InvalidRequestException;
use Tributary\Exception\NotFoundException;
use Tributary\Exception\RateLimitException;
use Tributary\Exception\ServiceUnavailableException;
use Tributary\Exception\TributaryException;
use Tributary\Exception\UnprocessableException;
use Tributary\Generated\ErrorCodes;

/** @internal The typed exception for an API answer that is not 2xx, as the Node SDK's errorFromResponse. */
final class ErrorFactory
{
    /**
     * @param array<string, string> $headers
     */
    public static function fromResponse(
        int $status,
        mixed $body,
        array $headers,
        ?string $idempotencyKey,
    ): TributaryException {
        $parsed = is_array($body) && is_string($body['code'] ?? null) && is_string($body['message'] ?? null)
            && is_array($body['details'] ?? null) ? $body : null;
        $code = $parsed['code'] ?? ($status >= 500 ? 'internal_error' : 'invalid_response');
        $class = self::classFor($code, $status);
        $details = [];
        foreach ($parsed['details'] ?? [] as $detail) {
            if (is_array($detail)) {
                $details[] = $detail;
            }
        }
        $requestId = is_string($parsed['request_id'] ?? null)
            ? $parsed['request_id']
            : ($headers['request-id'] ?? null);
        return new $class(
            $code,
            $parsed['message'] ?? "The API answered $status without an error body.",
            $status,
            $requestId,
            $details,
            $headers,
            $idempotencyKey,
        );
    }

    /** @return class-string<TributaryException> */
    public static function classFor(string $code, int $status): string
    {
        if ($code === 'idempotency_request_in_progress' || $code === 'idempotency_key_reused') {
            return IdempotencyException::class;
        }
        // The catalogue decides the group of a known code; the HTTP status decides for anything newer.
        $status = ErrorCodes::STATUS[$code] ?? $status;
        return match (true) {
            $status === 401 => AuthenticationException::class,
            $status === 404 => NotFoundException::class,
            $status === 409 => ConflictException::class,
            $status === 422 => UnprocessableException::class,
            $status === 429 => RateLimitException::class,
            $status === 503 => ServiceUnavailableException::class,
            $status >= 500 => ApiException::class,
            $status >= 400 => InvalidRequestException::class,
            default => ApiException::class,
        };
    }
}
