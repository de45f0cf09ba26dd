<?php

declare(strict_types=1);

namespace Tributary\Http;

/** One HTTP answer: status, headers (lower-case names, repeated ones joined by ", ") and the body text. */
final class HttpResponse
{
    /** @param array<string, string> $headers */
    public function __construct(
        public readonly int $status,
        public readonly array $headers,
        public readonly string $body,
    ) {
    }

    public function header(string $name): ?string
    {
        return $this->headers[strtolower($name)] ?? null;
    }
}
