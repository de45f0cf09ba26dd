<?php

declare(strict_types=1);

namespace Tributary\Http;

use Psr\Http\Client\ClientExceptionInterface;
use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\RequestFactoryInterface;
use Psr\Http\Message\StreamFactoryInterface;

/**
 * Sends the SDK's requests with any PSR-18 HTTP client (Guzzle 7, Symfony HttpClient's
 * Psr18Client, …), with PSR-17 factories to build the requests (most clients' packages ship them;
 * nyholm/psr7 and guzzlehttp/psr7 do):
 *
 * ```php
 * $guzzle = new \GuzzleHttp\Client(['timeout' => 60]);
 * $factory = new \GuzzleHttp\Psr7\HttpFactory();
 * $tributary = new TributaryClient($key, transport: new Psr18Transport($guzzle, $factory, $factory));
 * ```
 *
 * The PSR interfaces come from your dependencies (psr/http-client, psr/http-factory); the SDK
 * itself needs none of them unless this class is used. PSR-18 has no per-request deadline:
 * configure the timeout on your client. Your client must not retry by itself; the SDK's retries
 * reuse the Idempotency-Key, a client's own retries of a POST may not be safe. Every failure to
 * get an answer counts as a lost connection (PSR-18 does not say whether the request left).
 */
final class Psr18Transport implements HttpTransport
{
    public function __construct(
        private readonly ClientInterface $client,
        private readonly RequestFactoryInterface $requestFactory,
        private readonly StreamFactoryInterface $streamFactory,
    ) {
    }

    public function send(HttpRequest $request): HttpResponse
    {
        $message = $this->requestFactory->createRequest($request->method, $request->url);
        foreach ($request->headers as $name => $value) {
            $message = $message->withHeader($name, $value);
        }
        if ($request->body !== null) {
            $message = $message->withBody($this->streamFactory->createStream($request->body));
        }
        try {
            $response = $this->client->sendRequest($message);
            $body = (string) $response->getBody();
        } catch (ClientExceptionInterface $e) {
            throw new TransportException(TransportException::LOST, 'PSR-18 client: ' . $e->getMessage(), $e);
        } catch (\RuntimeException $e) {
            // Reading the body stream failed after the status line: the answer is lost too.
            throw new TransportException(
                TransportException::LOST,
                'reading the answer failed: ' . $e->getMessage(),
                $e,
            );
        }
        $headers = [];
        foreach ($response->getHeaders() as $name => $values) {
            $headers[strtolower((string) $name)] = implode(', ', $values);
        }
        return new HttpResponse($response->getStatusCode(), $headers, $body);
    }
}
