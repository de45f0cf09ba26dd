<?php

declare(strict_types=1);

namespace Tributary;

/** What the SDK knows about the HTTP answer behind a returned object (`$payment->lastResponse()`). */
final class ResponseMeta
{
    /**
     * @param ?string $idempotencyKey The Idempotency-Key sent, if the operation takes one.
     * @param bool $replayed True when the server replayed a finished request with this key (`Idempotent-Replayed`).
     * @param int $attempts How many tries the call took (1 without retries).
     */
    public function __construct(
        public readonly int $statusCode,
        public readonly ?string $requestId,
        public readonly ?string $idempotencyKey,
        public readonly bool $replayed,
        public readonly int $attempts,
    ) {
    }
}
