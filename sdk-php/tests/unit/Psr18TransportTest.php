<?php

declare(strict_types=1);

require_once __DIR__ . '/../support/psr-stubs.php';

use Psr\Http\Client\ClientExceptionInterface;
use Psr\Http\Client\ClientInterface;
use Psr\Http\Message\MessageInterface;
use Psr\Http\Message\RequestFactoryInterface;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;
use Psr\Http\Message\StreamFactoryInterface;
use Psr\Http\Message\StreamInterface;
use Tributary\Exception\ApiConnectionException;
use Tributary\Http\Psr18Transport;
use Tributary\TributaryClient;

use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\paymentFixtureText;

/*
 * Psr18Transport against a minimal PSR-7/17/18 implementation: what a PSR-18 client receives and
 * how its answers and exceptions come back.
 */

final class StubStream implements StreamInterface
{
    public function __construct(private readonly string $text)
    {
    }

    public function __toString(): string
    {
        return $this->text;
    }
}

/** An immutable message, as PSR-7 requires. */
final class StubMessage implements RequestInterface, ResponseInterface
{
    /** @param array<string, list<string>> $headers */
    public function __construct(public string $method = '', public string $uri = '', public int $status = 200, public array $headers = [], public StreamInterface $body = new StubStream(''))
    {
    }

    public function getHeaders(): array
    {
        return $this->headers;
    }

    public function getHeaderLine(string $name): string
    {
        return implode(', ', $this->headers[strtolower($name)] ?? []);
    }

    public function withHeader(string $name, $value): MessageInterface
    {
        $copy = clone $this;
        $copy->headers[strtolower($name)] = (array) $value;
        return $copy;
    }

    public function getBody(): StreamInterface
    {
        return $this->body;
    }

    public function withBody(StreamInterface $body): MessageInterface
    {
        $copy = clone $this;
        $copy->body = $body;
        return $copy;
    }

    public function getMethod(): string
    {
        return $this->method;
    }

    public function getUri()
    {
        return $this->uri;
    }

    public function getStatusCode(): int
    {
        return $this->status;
    }
}

final class StubFactory implements RequestFactoryInterface, StreamFactoryInterface
{
    public function createRequest(string $method, $uri): RequestInterface
    {
        return new StubMessage($method, (string) $uri);
    }

    public function createStream(string $content = ''): StreamInterface
    {
        return new StubStream($content);
    }
}

final class StubClientException extends RuntimeException implements ClientExceptionInterface
{
}

final class StubClient implements ClientInterface
{
    /** @var list<RequestInterface> */
    public array $sent = [];

    /** @param list<ResponseInterface|ClientExceptionInterface> $answers */
    public function __construct(private array $answers)
    {
    }

    public function sendRequest(RequestInterface $request): ResponseInterface
    {
        $this->sent[] = $request;
        $answer = array_shift($this->answers);
        if ($answer instanceof ClientExceptionInterface) {
            throw $answer;
        }
        return $answer;
    }
}

function psrClient(StubClient $client): TributaryClient
{
    $factory = new StubFactory();
    return new TributaryClient('sk_test_psr', baseUrl: 'http://tributary.test', transport: new Psr18Transport($client, $factory, $factory), sleep: static function (int $_): void {
    });
}

return [
    'sends method, URL, headers and body through the PSR-18 client and reads its answer' => static function (): void {
        $answer = new StubMessage(status: 201, headers: ['Content-Type' => ['application/json'], 'Request-Id' => ['req_PSR']], body: new StubStream(paymentFixtureText()));
        $client = new StubClient([$answer]);
        $payment = psrClient($client)->payments->create(['amount' => '10.1', 'currency' => 'USD', 'reference_no' => 'r']);
        assertSame('10.1', $payment->amount);
        assertSame('req_PSR', $payment->lastResponse()->requestId, 'response header names are matched in any case');
        $sent = $client->sent[0];
        assertSame('POST', $sent->getMethod());
        assertSame('http://tributary.test/payment/create', $sent->getUri());
        assertSame('Bearer sk_test_psr', $sent->getHeaderLine('authorization'));
        assertSame('application/json', $sent->getHeaderLine('content-type'));
        assertSame('{"amount":10.10,"currency":"USD","reference_no":"r"}', (string) $sent->getBody());
    },
    'a client exception is a lost answer: retried with the same key for a create' => static function (): void {
        $answer = new StubMessage(status: 201, headers: ['content-type' => ['application/json']], body: new StubStream(paymentFixtureText()));
        $client = new StubClient([new StubClientException('reset'), $answer]);
        $payment = psrClient($client)->payments->create(['amount' => '10.1', 'currency' => 'USD', 'reference_no' => 'r']);
        assertSame(2, $payment->lastResponse()->attempts);
        assertSame($client->sent[0]->getHeaderLine('idempotency-key'), $client->sent[1]->getHeaderLine('idempotency-key'));
        $client = new StubClient([new StubClientException('reset')]);
        assertThrows(ApiConnectionException::class, static fn () => psrClient($client)->webhookEndpoints->create(['url' => 'https://x.example']));
        assertSame(1, count($client->sent));
    },
];
