<?php

declare(strict_types=1);

use Tributary\Exception\ApiConnectionException;
use Tributary\Exception\ConflictException;
use Tributary\Exception\IdempotencyException;
use Tributary\Exception\RateLimitException;
use Tributary\Exception\ServiceUnavailableException;
use Tributary\Http\HttpResponse;
use Tributary\Http\TransportException;
use Tributary\Internal\RetryPolicy;
use Tributary\RequestOptions;
use Tributary\Tests\FakeTransport;
use Tributary\Tests\Sleeps;

use function Tributary\Tests\assertMatches;
use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;
use function Tributary\Tests\fakeClient;
use function Tributary\Tests\paymentFixtureText;

/*
 * The retry policy of sdk/README.md ("Retries and idempotency"), on a scripted transport: which
 * answers are retried for which operations, the same Idempotency-Key on every try, the waits.
 */

const QUICK_START = ['amount' => '150000.00', 'currency' => 'IDR', 'reference_no' => 'order-1001'];

function created(array $headers = []): HttpResponse
{
    return FakeTransport::json(201, paymentFixtureText(), ['request-id' => 'req_OK'] + $headers);
}

function endpointJson(): string
{
    return '{"id":"we_1","object":"webhook_endpoint","environment":"sandbox","url":"https://shop.example/hook","description":null,'
        . '"enabled_events":["*"],"status":"enabled","disabled_reason":null,"failing_since":null,"previous_secret_expires_at":null,'
        . '"version":1,"created_at":"2026-11-21T10:00:00.000Z","updated_at":"2026-11-21T10:00:00.000Z","secret":"whsec_c2VjcmV0"}';
}

/** A checkout as select answers it: the payment fixture (10.1 USD) expanded in `payment`. */
function selectedCheckout(): HttpResponse
{
    return FakeTransport::json(
        200,
        '{"id":"cs_1","object":"checkout","status":"open","url":"http://tributary.test/pay/cs_1","amount":10.1,"currency":"USD",'
            . '"reference_no":"order-1001","description":null,"email":null,"metadata":{},"callback_url":null,"channels":["bank"],'
            . '"success_url":null,"cancel_url":null,"payment":' . paymentFixtureText() . ',"payments":["pay_01M8BQE5S13FNR9M3GYSZ7ZZD5"],'
            . '"expires_at":"2026-11-22T10:00:00.000Z","version":2,"created_at":"2026-11-21T10:00:00.000Z",'
            . '"updated_at":"2026-11-21T10:00:00.000Z","closed_at":null}',
        ['request-id' => 'req_OK'],
    );
}

/** @return list<?string> */
function keysSent(FakeTransport $transport): array
{
    return array_map(static fn ($r) => $r->headers['idempotency-key'] ?? null, $transport->requests);
}

return [
    'a create whose answer was lost is retried with the same generated key' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost(), created(['idempotent-replayed' => 'true'])]);
        $sleeps = new Sleeps();
        $payment = fakeClient($transport, $sleeps)->payments->create(QUICK_START);
        $keys = keysSent($transport);
        assertSame(2, count($keys));
        assertMatches('/^tributary-php-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/D', (string) $keys[0]);
        assertSame($keys[0], $keys[1], 'the retry reuses the key of its logical call');
        assertSame($transport->requests[0]->body, $transport->requests[1]->body);
        $meta = $payment->lastResponse();
        assertSame(2, $meta->attempts);
        assertSame(true, $meta->replayed);
        assertSame($keys[0], $meta->idempotencyKey);
        assertSame('req_OK', $meta->requestId);
        assertSame(201, $meta->statusCode);
        assertSame(1, count($sleeps->ms));
    },
    'two calls get two keys; the caller\'s own key is used as given' => static function (): void {
        $transport = new FakeTransport([created(), created(), created()]);
        $client = fakeClient($transport);
        $client->payments->create(QUICK_START);
        $client->payments->create(QUICK_START);
        $client->payments->create(QUICK_START, ['idempotencyKey' => 'order-1001-create']);
        [$a, $b, $c] = keysSent($transport);
        assertTrue($a !== $b);
        assertSame('order-1001-create', $c);
    },
    'a malformed key is refused before sending' => static function (): void {
        $transport = new FakeTransport();
        foreach (["order\r\nX-Evil: 1", '', ' leading', str_repeat('k', 256), "caf\u{e9}"] as $key) {
            assertThrows(InvalidArgumentException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START, new RequestOptions(idempotencyKey: $key)));
        }
        assertSame([], $transport->requests);
    },
    'gives up after maxRetries lost answers with an ApiConnectionException naming the key' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost(), FakeTransport::lost(), FakeTransport::lost()]);
        $e = assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START));
        assertSame('connection_error', $e->errorCode);
        assertSame(null, $e->httpStatus);
        assertSame(3, count($transport->requests), 'first try + 2 retries (the default)');
        assertSame(keysSent($transport)[0], $e->idempotencyKey);
        assertTrue($e->getPrevious() instanceof TransportException);
    },
    'a timeout is an ApiConnectionException with code timeout' => static function (): void {
        $transport = new FakeTransport([new TransportException(TransportException::TIMEOUT, 'slow')]);
        $e = assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START, ['maxRetries' => 0]));
        assertSame('timeout', $e->errorCode);
        assertSame(1, count($transport->requests));
    },
    'a lost answer of an operation without a key is not retried (it could be done twice)' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost()]);
        assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport)->webhookEndpoints->create(['url' => 'https://shop.example/hook']));
        assertSame(1, count($transport->requests));
        assertSame(null, $transport->requests[0]->headers['idempotency-key'] ?? null, 'no key on an unkeyed operation');
    },
    'a connection never made is retried for every operation (nothing was sent)' => static function (): void {
        $transport = new FakeTransport([new TransportException(TransportException::NOT_SENT, 'refused'), FakeTransport::json(201, endpointJson())]);
        $endpoint = fakeClient($transport)->webhookEndpoints->create(['url' => 'https://shop.example/hook']);
        assertSame('we_1', $endpoint->id);
        assertSame(2, $endpoint->lastResponse()->attempts);
    },
    'a checkout selection is retried like a cancel: a generated key, lost answers and 503 retried, checkout_busy not' => static function (): void {
        $select = ['client_secret' => 'cs_secret_x', 'channel' => 'bank'];
        $transport = new FakeTransport([FakeTransport::lost(), FakeTransport::error(503, 'provider_unavailable', ['retry-after' => '1']), selectedCheckout()]);
        $checkout = fakeClient($transport)->checkouts->select('cs_1', $select);
        $keys = keysSent($transport);
        assertSame(3, count($keys));
        assertMatches('/^tributary-php-[0-9a-f-]{36}$/D', (string) $keys[0]);
        assertSame([$keys[0], $keys[0]], [$keys[1], $keys[2]], 'one key for the logical call');
        assertSame(3, $checkout->lastResponse()->attempts);
        assertSame('POST', $transport->requests[0]->method);
        assertSame('http://tributary.test/checkout/cs_1/select', $transport->requests[0]->url);
        assertSame('{"client_secret":"cs_secret_x","channel":"bank"}', $transport->requests[0]->body);
        $payment = Tributary\Resource\Checkouts::payment($checkout);
        assertTrue($payment instanceof Tributary\Generated\Model\Payment);
        assertSame('10.1', $payment->amount, 'the exact decimal text');
        assertSame('10.10 USD', (string) $payment->money());
        assertSame('10.1', $checkout->amount);
        assertSame(null, Tributary\Resource\Checkouts::payment(Tributary\Generated\Model\Checkout::fromArray(['payment' => 'pay_1'] + $checkout->toArray())));

        $transport = new FakeTransport([FakeTransport::error(409, 'checkout_busy', ['retry-after' => '1'])]);
        $e = assertThrows(ConflictException::class, static fn () => fakeClient($transport)->checkouts->select('cs_1', $select));
        assertSame('checkout_busy', $e->errorCode);
        assertSame(1, count($transport->requests), 'another selection (perhaps the payer\'s) is running: not retried over it');
    },
    'a checkout expiry sends an empty object and no key, and is not resent after a lost answer' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost()]);
        assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport)->checkouts->expire('cs_1'));
        assertSame(1, count($transport->requests));
        assertSame('{}', $transport->requests[0]->body);
        assertSame(null, $transport->requests[0]->headers['idempotency-key'] ?? null);
    },
    'GETs are retried after a lost answer and after 503' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost(), FakeTransport::error(503, 'service_unavailable', ['retry-after' => '1']), FakeTransport::json(200, paymentFixtureText())]);
        $sleeps = new Sleeps();
        $payment = fakeClient($transport, $sleeps)->payments->retrieve('pay_1');
        assertSame(3, $payment->lastResponse()->attempts);
        assertTrue($sleeps->ms[1] >= 1000, 'waited at least Retry-After: ' . $sleeps->ms[1]);
    },
    '503 is retried for keyed operations, not for unkeyed POSTs' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(503, 'provider_unavailable'), created()]);
        assertSame(2, fakeClient($transport)->payments->create(QUICK_START)->lastResponse()->attempts);
        $transport = new FakeTransport([FakeTransport::error(503, 'service_unavailable')]);
        assertThrows(ServiceUnavailableException::class, static fn () => fakeClient($transport)->webhookEndpoints->create(['url' => 'https://x.example']));
        assertSame(1, count($transport->requests));
    },
    '429 is retried for everything, never earlier than Retry-After' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(429, 'rate_limited', ['retry-after' => '2']), FakeTransport::json(201, endpointJson())]);
        $sleeps = new Sleeps();
        fakeClient($transport, $sleeps, random: 0.0)->webhookEndpoints->create(['url' => 'https://shop.example/hook']);
        assertSame([2000], $sleeps->ms);
        $transport = new FakeTransport([FakeTransport::error(429, 'rate_limited', ['retry-after' => '2']), created()]);
        $sleeps = new Sleeps();
        fakeClient($transport, $sleeps, random: 0.999999)->payments->create(QUICK_START);
        assertTrue($sleeps->ms[0] > 2000 && $sleeps->ms[0] <= 2200, 'a little jitter on top: ' . $sleeps->ms[0]);
    },
    'a Retry-After over 60 s goes back to the caller' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(429, 'rate_limited', ['retry-after' => '120'])]);
        $e = assertThrows(RateLimitException::class, static fn () => fakeClient($transport)->payments->list());
        assertSame(120, $e->retryAfterSeconds());
        assertSame(1, count($transport->requests));
    },
    '409 idempotency_request_in_progress is waited out for keyed operations only' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(409, 'idempotency_request_in_progress', ['retry-after' => '1']), created(['idempotent-replayed' => 'true'])]);
        $sleeps = new Sleeps();
        $payment = fakeClient($transport, $sleeps)->payments->create(QUICK_START);
        assertSame(true, $payment->lastResponse()->replayed);
        assertTrue($sleeps->ms[0] >= 1000);
        $transport = new FakeTransport(array_fill(0, 3, FakeTransport::error(409, 'idempotency_request_in_progress', ['retry-after' => '1'])));
        assertThrows(IdempotencyException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START));
        assertSame(3, count($transport->requests), 'bounded by maxRetries');
        $transport = new FakeTransport([FakeTransport::error(409, 'reference_no_conflict')]);
        assertThrows(ConflictException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START));
        assertSame(1, count($transport->requests), 'a conflict is an answer, not a reason to retry');
    },
    'other errors are not retried' => static function (): void {
        foreach ([[400, 'invalid_request'], [401, 'unauthorized'], [404, 'resource_not_found'], [422, 'idempotency_key_reused'], [500, 'internal_error']] as [$status, $code]) {
            $transport = new FakeTransport([FakeTransport::error($status, $code)]);
            assertThrows(Tributary\Exception\TributaryException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START));
            assertSame(1, count($transport->requests), "$status $code");
        }
    },
    'maxRetries: per call, 0 means one try, at most 10 whatever is asked' => static function (): void {
        $transport = new FakeTransport([FakeTransport::lost()]);
        assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport)->payments->create(QUICK_START, ['maxRetries' => 0]));
        assertSame(1, count($transport->requests));
        $transport = new FakeTransport(array_fill(0, 12, FakeTransport::lost()));
        assertThrows(ApiConnectionException::class, static fn () => fakeClient($transport, maxRetries: 50)->payments->retrieve('pay_1'));
        assertSame(11, count($transport->requests));
        assertThrows(InvalidArgumentException::class, static fn () => fakeClient(new FakeTransport(), maxRetries: -1));
    },
    'backoff: from 0.5 s doubling to 8 s, with up to half taken off at random' => static function (): void {
        $never = static fn (): float => 0.0;
        $always = static fn (): float => 1.0;
        assertSame(250, RetryPolicy::delayMs(1, null, $never));
        assertSame(500, RetryPolicy::delayMs(1, null, $always));
        assertSame(500, RetryPolicy::delayMs(2, null, $never));
        assertSame(1000, RetryPolicy::delayMs(2, null, $always));
        assertSame(4000, RetryPolicy::delayMs(5, null, $never));
        assertSame(8000, RetryPolicy::delayMs(10, null, $always), 'capped');
        assertSame(8000, RetryPolicy::delayMs(1000, null, $always), 'no overflow');
        assertSame(3000, RetryPolicy::delayMs(1, 3000, $never), 'Retry-After wins over a shorter backoff');
        assertSame(3300, RetryPolicy::delayMs(1, 3000, $always), 'at most 10 % later');
        assertSame(8000, RetryPolicy::delayMs(10, 1000, $always), 'a longer backoff wins over Retry-After');
    },
    'Retry-After: seconds or an HTTP date' => static function (): void {
        assertSame(5, RetryPolicy::parseRetryAfter('5'));
        assertSame(null, RetryPolicy::parseRetryAfter(null));
        assertSame(null, RetryPolicy::parseRetryAfter('soon'));
        assertSame(30, RetryPolicy::parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', strtotime('2026-11-21T10:00:00Z')));
        assertSame(0, RetryPolicy::parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', strtotime('2026-11-21T10:00:00Z')));
    },
];
