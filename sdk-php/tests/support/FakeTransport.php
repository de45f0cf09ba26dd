<?php

declare(strict_types=1);

namespace Tributary\Tests;

use Tributary\Http\HttpRequest;
use Tributary\Http\HttpResponse;
use Tributary\Http\HttpTransport;
use Tributary\Http\TransportException;
use Tributary\TributaryClient;

/** A transport that answers from a script and records every request, for tests without a server. */
final class FakeTransport implements HttpTransport
{
    /** @var list<HttpRequest> */
    public array $requests = [];

    /** @param list<HttpResponse|TransportException|\Closure(HttpRequest): (HttpResponse|TransportException)> $script */
    public function __construct(private array $script = [])
    {
    }

    /** @param HttpResponse|TransportException|\Closure(HttpRequest): (HttpResponse|TransportException) $answer */
    public function then(HttpResponse|TransportException|\Closure $answer): self
    {
        $this->script[] = $answer;
        return $this;
    }

    public function send(HttpRequest $request): HttpResponse
    {
        $this->requests[] = $request;
        $answer = array_shift($this->script) ?? throw new \LogicException('FakeTransport: no answer scripted for ' . $request->url);
        if ($answer instanceof \Closure) {
            $answer = $answer($request);
        }
        if ($answer instanceof TransportException) {
            throw $answer;
        }
        return $answer;
    }

    /** @param array<mixed>|string $body @param array<string, string> $headers */
    public static function json(int $status, array|string $body, array $headers = []): HttpResponse
    {
        $text = is_string($body) ? $body : json_encode($body, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES);
        return new HttpResponse($status, ['content-type' => 'application/json; charset=utf-8'] + $headers, $text);
    }

    /** @param array<string, string> $headers */
    public static function error(int $status, string $code, array $headers = [], array $details = []): HttpResponse
    {
        return self::json(
            $status,
            ['code' => $code, 'message' => "test $code", 'details' => $details, 'request_id' => 'req_TEST'],
            ['request-id' => 'req_TEST'] + $headers,
        );
    }

    public static function lost(): TransportException
    {
        return new TransportException(TransportException::LOST, 'connection reset (test)');
    }
}

/** What the fake clock slept, in ms. */
final class Sleeps
{
    /** @var list<int> */
    public array $ms = [];
}

/**
 * A client on a FakeTransport whose sleeps are recorded instead of waited, with jitter fixed at
 * `$random`.
 */
function fakeClient(FakeTransport $transport, ?Sleeps $sleeps = null, float $random = 0.5, int $maxRetries = 2): TributaryClient
{
    $sleeps ??= new Sleeps();
    return new TributaryClient(
        'sk_test_unit',
        baseUrl: 'http://tributary.test',
        maxRetries: $maxRetries,
        transport: $transport,
        sleep: static function (int $ms) use ($sleeps): void {
            $sleeps->ms[] = $ms;
        },
        random: static fn (): float => $random,
    );
}

/** @return array<string, mixed> The payment fixture (a real answer of the server, amounts made fractional, USD). */
function paymentFixture(): array
{
    return json_decode(paymentFixtureText(), true, 512, JSON_THROW_ON_ERROR);
}

function paymentFixtureText(): string
{
    return (string) file_get_contents(__DIR__ . '/../fixtures/payment.json');
}
