<?php

declare(strict_types=1);

namespace Tributary\Http;

/** One HTTP request as the SDK sends it; header names are lower case. */
final class HttpRequest
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly string $method,
        public readonly string $url,
        public readonly array $headers,
        public readonly ?string $body,
        /** Deadline of this try, body included. */
        public readonly int $timeoutMs,
    ) {
    }
}
