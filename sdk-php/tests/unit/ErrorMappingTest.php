<?php

declare(strict_types=1);

use Tributary\Exception\ApiException;
use Tributary\Exception\AuthenticationException;
use Tributary\Exception\ConflictException;
use Tributary\Exception\ExceptionInterface;
use Tributary\Exception\IdempotencyException;
use Tributary\Exception\InvalidAmountException;
use Tributary\Exception\InvalidRequestException;
use Tributary\Exception\NotFoundException;
use Tributary\Exception\RateLimitException;
use Tributary\Exception\ServiceUnavailableException;
use Tributary\Exception\TributaryException;
use Tributary\Exception\UnprocessableException;
use Tributary\Generated\ErrorCodes;
use Tributary\Http\HttpResponse;
use Tributary\Internal\ErrorFactory;
use Tributary\Tests\FakeTransport;

use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;
use function Tributary\Tests\fakeClient;

/*
 * Every code of the error catalogue (src/lib/error-catalogue.ts, generated into ErrorCodes) maps
 * to the exception class of the Node SDK's table (sdk/README.md, "Errors").
 */

/** The class the Node SDK's table gives a status, written out independently of ErrorFactory. */
function expectedClass(string $code, int $status): string
{
    if (in_array($code, ['idempotency_request_in_progress', 'idempotency_key_reused'], true)) {
        return IdempotencyException::class;
    }
    return match ($status) {
        400, 405, 413, 415 => InvalidRequestException::class,
        401 => AuthenticationException::class,
        404 => NotFoundException::class,
        409 => ConflictException::class,
        422 => UnprocessableException::class,
        429 => RateLimitException::class,
        503 => ServiceUnavailableException::class,
        500 => ApiException::class,
    };
}

return [
    'every catalogue code maps to its class, with code, status and request id' => static function (): void {
        assertTrue(count(ErrorCodes::STATUS) >= 26, 'the generated catalogue is complete');
        foreach (ErrorCodes::STATUS as $code => $status) {
            $body = ['code' => $code, 'message' => 'm', 'details' => [], 'request_id' => 'req_BODY'];
            $e = ErrorFactory::fromResponse($status, $body, ['request-id' => 'req_HEADER'], 'key-1');
            assertSame(expectedClass($code, $status), get_class($e), $code);
            assertSame($code, $e->errorCode);
            assertSame($status, $e->httpStatus);
            assertSame('req_BODY', $e->requestId);
            assertSame('key-1', $e->idempotencyKey);
            assertTrue($e instanceof TributaryException && $e instanceof ExceptionInterface);
        }
    },
    'param is the first field named in details' => static function (): void {
        $details = [['issue' => 'x'], ['field' => 'amount', 'issue' => 'amount_too_precise', 'message' => 'USD amounts have at most 2 fractional digits'], ['field' => 'currency']];
        $e = ErrorFactory::fromResponse(400, ['code' => 'invalid_request', 'message' => 'bad', 'details' => $details, 'request_id' => 'req_1'], [], null);
        assertSame('amount', $e->param);
        assertSame('amount_too_precise', $e->details[1]['issue']);
        assertSame('bad', $e->getMessage());
        assertSame(0, $e->getCode(), 'PHP\'s integer code is left alone');
    },
    'a newer code is classed by its HTTP status; an answer without a body too' => static function (): void {
        assertSame(ConflictException::class, get_class(ErrorFactory::fromResponse(409, ['code' => 'checkout_closed', 'message' => 'm', 'details' => []], [], null)));
        $e = ErrorFactory::fromResponse(502, '<html>bad gateway</html>', ['request-id' => 'req_H'], null);
        assertSame(ApiException::class, get_class($e));
        assertSame('internal_error', $e->errorCode);
        assertSame('req_H', $e->requestId, 'the Request-Id header when the body has none');
        assertSame(InvalidRequestException::class, get_class(ErrorFactory::fromResponse(418, null, [], null)));
        assertSame('invalid_response', ErrorFactory::fromResponse(418, null, [], null)->errorCode);
    },
    'the client throws the mapped exception with the response headers' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(404, 'resource_not_found')]);
        $e = assertThrows(NotFoundException::class, static fn () => fakeClient($transport)->payments->retrieve('pay_missing'));
        assertSame('resource_not_found', $e->errorCode);
        assertSame('req_TEST', $e->headers['request-id']);
        $transport = new FakeTransport([FakeTransport::error(429, 'rate_limited', ['retry-after' => '90'])]);
        $e = assertThrows(RateLimitException::class, static fn () => fakeClient($transport)->payments->list());
        assertSame(90, $e->retryAfterSeconds());
    },
    'an unreadable success is an ApiException invalid_response, not a crash' => static function (): void {
        $transport = new FakeTransport([new HttpResponse(200, ['content-type' => 'application/json'], '{"id": ')]);
        $e = assertThrows(ApiException::class, static fn () => fakeClient($transport)->payments->retrieve('pay_1'));
        assertSame('invalid_response', $e->errorCode);
        $transport = new FakeTransport([FakeTransport::json(200, ['id' => 'pay_1', 'object' => 'payment'])]);
        $e = assertThrows(ApiException::class, static fn () => fakeClient($transport)->payments->retrieve('pay_1'));
        assertSame('invalid_response', $e->errorCode);
        assertTrue(str_contains($e->getMessage(), 'Payment'), $e->getMessage());
    },
    'amount refusals are ExceptionInterface too, but not API errors' => static function (): void {
        $e = new InvalidAmountException('amount_too_precise', 'm');
        assertTrue($e instanceof ExceptionInterface && $e instanceof InvalidArgumentException && !$e instanceof TributaryException);
    },
];
