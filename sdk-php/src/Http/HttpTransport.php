<?php

declare(strict_types=1);

namespace Tributary\Http;

/**
 * How the client sends one HTTP request. The SDK ships two: CurlTransport (the default, on
 * ext-curl) and Psr18Transport (any PSR-18 client, e.g. Guzzle or Symfony HttpClient). Retries,
 * idempotency keys and errors are the client's business, not the transport's: a transport sends
 * exactly once and never retries by itself.
 */
interface HttpTransport
{
    /**
     * Returns the answer whatever its status (4xx and 5xx included).
     *
     * @throws TransportException when there is no answer
     */
    public function send(HttpRequest $request): HttpResponse;
}
