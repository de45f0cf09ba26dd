<?php

declare(strict_types=1);

namespace Tributary\Exception;

/**
 * The base of every error of an API call. API errors carry the body's `code` (one of the error
 * catalogue, docs/errors.md) as `errorCode`, the HTTP status, the `requestId` to quote to support
 * and, for a field problem, `param` (the first field `details` names).
 *
 * `errorCode` is a string such as `invalid_request`; PHP's own integer `getCode()` stays 0, as
 * frameworks expect an int there.
 */
class TributaryException extends \RuntimeException implements ExceptionInterface
{
    /** The first `field` named in `details`, e.g. `amount`. */
    public readonly ?string $param;

    /**
     * @param string $errorCode A catalogue code, or a client-side one: `connection_error`, `timeout`,
     *                          `invalid_response`, `webhook_verification_failed`.
     * @param list<array<string, mixed>> $details The body's `details`: `{field, issue, message}` for a field problem.
     * @param array<string, string> $headers Response headers, lower-case names.
     * @param ?string $idempotencyKey The Idempotency-Key sent: retry the same operation later with it.
     */
    public function __construct(
        public readonly string $errorCode,
        string $message,
        public readonly ?int $httpStatus = null,
        public readonly ?string $requestId = null,
        public readonly array $details = [],
        public readonly array $headers = [],
        public readonly ?string $idempotencyKey = null,
        ?\Throwable $previous = null,
    ) {
        parent::__construct($message, 0, $previous);
        $field = null;
        foreach ($details as $detail) {
            if (is_string($detail['field'] ?? null)) {
                $field = $detail['field'];
                break;
            }
        }
        $this->param = $field;
    }

    /** Seconds from the `Retry-After` header (429 and 503 answers), or null. */
    public function retryAfterSeconds(): ?int
    {
        return \Tributary\Internal\RetryPolicy::parseRetryAfter($this->headers['retry-after'] ?? null);
    }
}
