<?php

declare(strict_types=1);

use Tributary\Http\CurlTransport;
use Tributary\Http\HttpRequest;
use Tributary\Http\TransportException;

use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;

/*
 * The default transport against a real HTTP server on loopback (PHP's built-in server with
 * tests/support/echo-server.php): what goes out, what comes back, and how failures are told apart.
 */

/** A loopback port nobody listens on right now. */
function freePort(): int
{
    $socket = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
    if ($socket === false) {
        throw new RuntimeException("no free port: $error");
    }
    $port = (int) substr((string) strrchr((string) stream_socket_get_name($socket, false), ':'), 1);
    fclose($socket);
    return $port;
}

/** Runs `$test` with the base URL of a fresh `php -S` echo server, then stops it. */
function withEchoServer(callable $test): void
{
    $port = freePort();
    $process = proc_open(
        [PHP_BINARY, '-S', "127.0.0.1:$port", __DIR__ . '/../support/echo-server.php'],
        [0 => ['pipe', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']],
        $pipes,
    );
    if ($process === false) {
        throw new RuntimeException('could not start php -S');
    }
    try {
        for ($i = 0; $i < 100; $i += 1) { // up to 5 s for the server to listen
            $probe = @fsockopen('127.0.0.1', $port, $errno, $error, 0.05);
            if ($probe !== false) {
                fclose($probe);
                break;
            }
            usleep(50_000);
        }
        $test("http://127.0.0.1:$port");
    } finally {
        proc_terminate($process);
        proc_close($process);
    }
}

function echoed(string $body): array
{
    return json_decode($body, true, 512, JSON_THROW_ON_ERROR);
}

return [
    'sends method, headers and body; returns status, headers and body' => static function (): void {
        withEchoServer(static function (string $base): void {
            $curl = new CurlTransport();
            $response = $curl->send(new HttpRequest('POST', "$base/payment/create?x=1", ['authorization' => 'Bearer sk_test_x', 'content-type' => 'application/json'], '{"amount":10.10}', 5_000));
            assertSame(200, $response->status);
            assertSame('a, b', $response->header('X-Repeated'), 'repeated headers are joined');
            $seen = echoed($response->body);
            assertSame('POST', $seen['method']);
            assertSame('/payment/create?x=1', $seen['uri']);
            assertSame('Bearer sk_test_x', $seen['headers']['authorization']);
            assertSame('{"amount":10.10}', $seen['body']);
            assertTrue(!isset($seen['headers']['expect']), 'no Expect: 100-continue');
            $get = $curl->send(new HttpRequest('GET', "$base/payment", [], null, 5_000));
            assertSame('GET', echoed($get->body)['method']);
            $status = $curl->send(new HttpRequest('DELETE', "$base/status/503", [], null, 5_000));
            assertSame(503, $status->status, 'an error status is an answer, not an exception');
            assertSame('7', $status->header('retry-after'));
        });
    },
    'a deadline passed is a TIMEOUT' => static function (): void {
        withEchoServer(static function (string $base): void {
            $e = assertThrows(TransportException::class, static fn () => (new CurlTransport())->send(new HttpRequest('GET', "$base/slow", [], null, 300)));
            assertSame(TransportException::TIMEOUT, $e->kind);
        });
    },
    'a refused connection is NOT_SENT (safe to send again)' => static function (): void {
        $e = assertThrows(TransportException::class, static fn () => (new CurlTransport())->send(new HttpRequest('POST', 'http://127.0.0.1:' . freePort() . '/x', [], '{}', 2_000)));
        assertSame(TransportException::NOT_SENT, $e->kind);
    },
    'only http and https URLs are fetched' => static function (): void {
        $e = assertThrows(TransportException::class, static fn () => (new CurlTransport())->send(new HttpRequest('GET', 'file:///etc/passwd', [], null, 2_000)));
        assertSame(TransportException::LOST, $e->kind);
    },
];
