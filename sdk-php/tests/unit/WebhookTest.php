<?php

declare(strict_types=1);

use Tributary\Exception\WebhookVerificationException;
use Tributary\Generated\Model\Event;
use Tributary\Generated\Model\Payment;
use Tributary\Webhook;

use function Tributary\Tests\assertMatches;
use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;
use function Tributary\Tests\paymentFixtureText;

/*
 * Webhook verification against the Standard Webhooks reference implementation's test vectors
 * (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts and
 * libraries/php/tests/WebhookTest.php): the same secret, id, payload and expected signature.
 * test/sdk/sdk-php.test.ts checks further signatures made by the npm package `standardwebhooks`.
 */

const VECTOR_SECRET = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const VECTOR_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const VECTOR_TIMESTAMP = 1614265330;
const VECTOR_PAYLOAD = '{"test": 2432232314}';
const VECTOR_SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

/** @return array<string, string> */
function vectorHeaders(string $signature = VECTOR_SIGNATURE): array
{
    return ['webhook-id' => VECTOR_ID, 'webhook-timestamp' => (string) VECTOR_TIMESTAMP, 'webhook-signature' => $signature];
}

function refusedWebhook(callable $fn, string $message): void
{
    $e = assertThrows(WebhookVerificationException::class, $fn, $message);
    assertSame('webhook_verification_failed', $e->errorCode);
}

function verifyVector(array $headers, string $payload = VECTOR_PAYLOAD, string $secret = 'whsec_' . VECTOR_SECRET, int $now = VECTOR_TIMESTAMP): void
{
    Webhook::verifySignature($payload, $headers, $secret, now: $now);
}

/** An event delivery signed now with a fresh secret, as the server sends one. */
function signedEvent(string $body): array
{
    $secret = 'whsec_' . base64_encode(random_bytes(32));
    $now = time();
    $headers = ['webhook-id' => 'evt_TEST', 'webhook-timestamp' => (string) $now, 'webhook-signature' => Webhook::sign('evt_TEST', $now, $body, $secret)];
    return [$secret, $headers, $now];
}

return [
    'signs the reference vector exactly' => static function (): void {
        assertSame(VECTOR_SIGNATURE, Webhook::sign(VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_PAYLOAD, 'whsec_' . VECTOR_SECRET));
    },
    'verifies the reference vector, with and without the whsec_ prefix' => static function (): void {
        verifyVector(vectorHeaders());
        verifyVector(vectorHeaders(), secret: VECTOR_SECRET);
    },
    'refuses a missing webhook-id, webhook-timestamp or webhook-signature' => static function (): void {
        foreach (['webhook-id', 'webhook-timestamp', 'webhook-signature'] as $name) {
            $headers = vectorHeaders();
            unset($headers[$name]);
            refusedWebhook(static fn () => verifyVector($headers), "without $name");
        }
    },
    'refuses an invalid timestamp' => static function (): void {
        $headers = ['webhook-timestamp' => 'hello'] + vectorHeaders();
        refusedWebhook(static fn () => verifyVector($headers), 'timestamp hello');
        $headers = ['webhook-timestamp' => '161426533.0'] + vectorHeaders();
        refusedWebhook(static fn () => verifyVector($headers), 'a float timestamp');
    },
    'refuses an invalid, partial or empty signature' => static function (): void {
        refusedWebhook(static fn () => verifyVector(vectorHeaders('v1,dawfeoifkpqwoekfpqoekf')), 'invalid');
        refusedWebhook(static fn () => verifyVector(vectorHeaders(substr(VECTOR_SIGNATURE, 0, 8))), 'partial');
        refusedWebhook(static fn () => verifyVector(vectorHeaders('v1,')), 'empty');
        refusedWebhook(static fn () => verifyVector(vectorHeaders(str_replace('v1,', 'v2,', VECTOR_SIGNATURE))), 'only v1 counts');
    },
    'accepts one valid signature among several (secret rotation)' => static function (): void {
        $signatures = implode(' ', [
            'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
            'v2,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
            VECTOR_SIGNATURE,
            'v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc=',
        ]);
        verifyVector(vectorHeaders($signatures));
    },
    'refuses a tampered payload and a wrong secret' => static function (): void {
        refusedWebhook(static fn () => verifyVector(vectorHeaders(), '{"test": 2432232315}'), 'tampered');
        refusedWebhook(static fn () => verifyVector(vectorHeaders(), secret: 'whsec_' . base64_encode('another secret')), 'wrong secret');
    },
    'accepts timestamps within 300 s either way, refuses 301 s' => static function (): void {
        verifyVector(vectorHeaders(), now: VECTOR_TIMESTAMP + 300);
        verifyVector(vectorHeaders(), now: VECTOR_TIMESTAMP - 300);
        refusedWebhook(static fn () => verifyVector(vectorHeaders(), now: VECTOR_TIMESTAMP + 301), 'too old');
        refusedWebhook(static fn () => verifyVector(vectorHeaders(), now: VECTOR_TIMESTAMP - 301), 'too new');
        Webhook::verifySignature(VECTOR_PAYLOAD, vectorHeaders(), VECTOR_SECRET, toleranceSeconds: 3600, now: VECTOR_TIMESTAMP + 3600);
    },
    'reads headers in any casing, as arrays, and from $_SERVER' => static function (): void {
        verifyVector(['Webhook-Id' => VECTOR_ID, 'WEBHOOK-TIMESTAMP' => (string) VECTOR_TIMESTAMP, 'Webhook-Signature' => VECTOR_SIGNATURE]);
        verifyVector(['webhook-id' => [VECTOR_ID], 'webhook-timestamp' => [(string) VECTOR_TIMESTAMP], 'webhook-signature' => [VECTOR_SIGNATURE]]);
        verifyVector(['HTTP_WEBHOOK_ID' => VECTOR_ID, 'HTTP_WEBHOOK_TIMESTAMP' => (string) VECTOR_TIMESTAMP, 'HTTP_WEBHOOK_SIGNATURE' => VECTOR_SIGNATURE]);
    },
    'refuses an empty or malformed secret' => static function (): void {
        assertThrows(InvalidArgumentException::class, static fn () => verifyVector(vectorHeaders(), secret: ''));
        assertThrows(InvalidArgumentException::class, static fn () => verifyVector(vectorHeaders(), secret: 'whsec_'));
        assertThrows(InvalidArgumentException::class, static fn () => verifyVector(vectorHeaders(), secret: 'whsec_not base64!'));
    },
    'verify() returns the event with exact amounts; eventObject() types data.object' => static function (): void {
        $body = '{"id":"evt_TEST","type":"payment.succeeded","created_at":"2026-11-21T10:00:00.000Z","api_version":"2026-11-01",'
            . '"data":{"object":' . paymentFixtureText() . ',"previous_attributes":{"status":"pending"}}}';
        [$secret, $headers] = signedEvent($body);
        $event = Webhook::verify($body, $headers, $secret);
        assertTrue($event instanceof Event);
        assertSame('payment.succeeded', $event->type);
        assertSame('10.1', $event->data->object['amount'], 'the amount is its exact text, not a float');
        assertSame(['status' => 'pending'], $event->data->previous_attributes);
        $payment = Webhook::eventObject($event);
        assertTrue($payment instanceof Payment);
        assertSame('10.10', $payment->money()->amount());
        assertSame(null, $event->lastResponse());
    },
    'an event type this SDK does not know verifies, with no typed object' => static function (): void {
        $body = '{"id":"evt_TEST","type":"invoice.paid","created_at":"2026-11-21T10:00:00.000Z","api_version":"2027-01-01",'
            . '"data":{"object":{"id":"inv_1"},"previous_attributes":{}}}';
        [$secret, $headers] = signedEvent($body);
        assertSame(null, Webhook::eventObject(Webhook::verify($body, $headers, $secret)));
    },
    'a signed body that is not an event is refused by verify() (not by verifySignature())' => static function (): void {
        [$secret, $headers, $now] = signedEvent('[1,2]');
        Webhook::verifySignature('[1,2]', $headers, $secret, now: $now);
        refusedWebhook(static fn () => Webhook::verify('[1,2]', $headers, $secret), 'a list');
        [$secret, $headers] = signedEvent('{"id":"evt_TEST"}');
        refusedWebhook(static fn () => Webhook::verify('{"id":"evt_TEST"}', $headers, $secret), 'no type');
    },
    'sign() makes what verify() accepts' => static function (): void {
        [$secret, $headers] = signedEvent('{}');
        assertMatches('#^v1,[A-Za-z0-9+/]{43}=$#', $headers['webhook-signature']);
    },
];
