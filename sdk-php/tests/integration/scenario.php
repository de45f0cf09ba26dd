<?php

declare(strict_types=1);

/*
 * Runs one scenario of test/sdk/sdk-php.test.ts with the SDK against a real Tributary server and
 * prints what happened as one JSON object on stdout. Never prints a key or a secret.
 *
 *   TRIBUTARY_BASE_URL=… TRIBUTARY_API_KEY=… SCENARIO_INPUT='{…}' php scenario.php NAME
 */

require __DIR__ . '/../../autoload.php';

// A failure prints its class, message and where, never the arguments of a trace (keys, secrets).
ini_set('zend.exception_ignore_args', '1');
set_exception_handler(static function (Throwable $e): void {
    fwrite(STDERR, get_class($e) . ': ' . $e->getMessage() . ' at ' . $e->getFile() . ':' . $e->getLine() . "\n");
    exit(1);
});

use Tributary\Exception\ExceptionInterface;
use Tributary\Exception\InvalidAmountException;
use Tributary\Exception\TributaryException;
use Tributary\Generated\ApiSpec;
use Tributary\Generated\Model\Payment;
use Tributary\Model;
use Tributary\Resource\Checkouts;
use Tributary\TributaryClient;
use Tributary\Webhook;

/** @return array<string, mixed> */
function input(): array
{
    return json_decode(getenv('SCENARIO_INPUT') ?: '{}', true, 512, JSON_THROW_ON_ERROR);
}

function env(string $name): string
{
    $value = getenv($name);
    if (!is_string($value) || $value === '') {
        throw new RuntimeException("$name is not set");
    }
    return $value;
}

function client(?string $key = null, ?string $apiVersion = null): TributaryClient
{
    // No waiting between retries: the server's answers, not the clock, are under test here.
    return new TributaryClient($key ?? env('TRIBUTARY_API_KEY'), baseUrl: env('TRIBUTARY_BASE_URL'), apiVersion: $apiVersion, sleep: static function (int $_): void {
    });
}

/** What a test needs to know about an exception (never its headers: they could echo a key). */
function describeError(Throwable $e): array
{
    $out = ['class' => (new ReflectionClass($e))->getShortName()];
    if ($e instanceof TributaryException) {
        $out += [
            'errorCode' => $e->errorCode,
            'httpStatus' => $e->httpStatus,
            'param' => $e->param,
            'issue' => $e->details[0]['issue'] ?? null,
            'requestId' => $e->requestId,
            'idempotencyKey' => $e->idempotencyKey,
        ];
    } elseif ($e instanceof InvalidAmountException) {
        $out['issue'] = $e->issue;
    }
    return $out;
}

function attempt(callable $call): array
{
    try {
        $result = $call();
        return ['ok' => true, 'value' => $result instanceof Model ? $result->toArray() : $result];
    } catch (ExceptionInterface $e) {
        return ['ok' => false] + describeError($e);
    }
}

/** @return array<string, mixed> */
function meta(Model $object): array
{
    $meta = $object->lastResponse();
    return [
        'statusCode' => $meta?->statusCode,
        'requestId' => $meta?->requestId,
        'idempotencyKey' => $meta?->idempotencyKey,
        'replayed' => $meta?->replayed,
        'attempts' => $meta?->attempts,
    ];
}

$scenarios = [
    'spec' => static fn (): array => ['sha256' => ApiSpec::OPENAPI_SHA256, 'apiVersion' => ApiSpec::API_VERSION],

    // A GET first, so a kept-alive connection exists when the create goes out.
    'create-retry' => static function (): array {
        $in = input();
        $tributary = client();
        $tributary->payments->list(['limit' => 1]);
        $payment = $tributary->payments->create(['amount' => '150000.00', 'currency' => 'IDR', 'reference_no' => $in['reference_no'], 'email' => 'payer@example.com']);
        $again = $tributary->payments->retrieve($payment->id);
        return [
            'id' => $payment->id,
            'again' => $again->id,
            'amount' => $payment->amount,
            'money' => (string) $payment->money(),
            'status' => $payment->status,
            'instructions' => $payment->instructions === null ? null : (new ReflectionClass($payment->instructions))->getShortName(),
            'meta' => meta($payment),
        ];
    },

    'unkeyed-lost' => static function (): array {
        $tributary = client();
        $tributary->payments->list(['limit' => 1]);
        return attempt(static fn () => $tributary->webhookEndpoints->create(['url' => 'https://shop.example.com/hooks']));
    },

    'errors' => static function (): array {
        $in = input();
        $tributary = client();
        $quick = static fn (string $reference): array => ['amount' => '150000', 'currency' => 'IDR', 'reference_no' => $reference];
        $tributary->payments->create($quick($in['taken']));
        $tributary->payments->create($quick($in['keyed']), ['idempotencyKey' => $in['key']]);
        return [
            'invalid' => attempt(static fn () => $tributary->payments->create($quick(' leading space'))),
            'notFound' => attempt(static fn () => $tributary->payments->retrieve('pay_00000000000000000000000000')),
            'conflict' => attempt(static fn () => $tributary->payments->create($quick($in['taken']))),
            'keyReused' => attempt(static fn () => $tributary->payments->create($quick($in['other']), ['idempotencyKey' => $in['key']])),
            'unprocessable' => attempt(static fn () => $tributary->payments->create(['amount' => '10.50', 'currency' => 'USD', 'reference_no' => $in['other']])),
            'tooPrecise' => attempt(static fn () => $tributary->payments->create(['amount' => '10.005', 'currency' => 'USD', 'reference_no' => $in['other']])),
            'unauthorized' => attempt(static fn () => client('sk_test_not_a_real_key')->payments->list()),
            'badVersion' => attempt(static fn () => client(apiVersion: '1999-01-01')->payments->list()),
        ];
    },

    'pagination' => static function (): array {
        $in = input();
        $tributary = client();
        $first = $tributary->payments->list(['limit' => $in['limit']]);
        $ids = [];
        foreach ($tributary->payments->list(['limit' => $in['limit']]) as $payment) {
            $ids[] = $payment->id;
        }
        return [
            'firstPage' => array_map(static fn ($p) => $p->id, $first->data),
            'hasMore' => $first->has_more,
            'nextCursor' => $first->next_cursor,
            'all' => $ids,
            'firstFive' => array_map(static fn ($p) => $p->id, $tributary->payments->list(['limit' => 2])->toArray(5)),
        ];
    },

    'resources' => static function (): array {
        $in = input();
        $tributary = client();
        $paid = $in['paid'];
        $out = [];
        $refund = $tributary->refunds->create($paid, ['amount' => '50000']);
        $out['refund'] = ['id' => $refund->id, 'amount' => $refund->amount, 'money' => (string) $refund->money(), 'keyed' => $refund->lastResponse()?->idempotencyKey !== null];
        $out['refundAgain'] = $tributary->refunds->retrieve($refund->id)->id;
        $balance = $tributary->balance->retrieve(['verify' => true]);
        $out['balance'] = ['verification' => $balance->verification?->status, 'currencies' => array_map(static fn ($b) => $b->currency, $balance->balances)];
        $settled = $tributary->sandbox->simulate($paid, ['outcome' => 'settled']);
        $out['simulate'] = $settled->outcome;
        $payment = $tributary->payments->retrieve($paid);
        $out['settlementId'] = $payment->settlement_id;
        $out['fee'] = $payment->fee;
        $settlementIds = [];
        foreach ($tributary->settlements->list(['limit' => 1]) as $settlement) {
            $settlementIds[] = $settlement->id;
        }
        $out['settlements'] = $settlementIds;
        $settlement = $tributary->settlements->retrieve((string) $payment->settlement_id);
        $out['settlement'] = ['gross' => $settlement->gross, 'net' => (string) $settlement->money('net')];
        $rec = $tributary->reconciliation->create(['connector' => 'sandbox_bank', 'from' => new DateTimeImmutable($in['from']), 'to' => $in['to']]);
        $out['reconciliation'] = ['id' => $rec->id, 'keyed' => $rec->lastResponse()?->idempotencyKey !== null, 'again' => $tributary->reconciliation->retrieve($rec->id)->id];
        $lines = [];
        foreach ($tributary->reconciliation->lines($rec->id, ['limit' => 1]) as $line) {
            $lines[] = ['payment' => $line->payment_id, 'result' => $line->result];
        }
        $out['lines'] = $lines;
        $out['csvHasPayment'] = str_contains($tributary->reconciliation->exportCsv($rec->id), $paid);
        $out['exceptions'] = $tributary->settlementExceptions->list()->object;
        $methods = $tributary->paymentMethods->list(['amount' => '150000.00', 'currency' => 'IDR']);
        $out['methods'] = array_map(static fn ($m) => $m->connector, $methods->data);

        $pending = $tributary->payments->create(['amount' => 150000, 'currency' => 'IDR', 'reference_no' => $in['reference_no']]);
        $canceled = $tributary->payments->cancel($pending->id, ['cancellation_reason' => 'abandoned']);
        $out['cancel'] = ['status' => $canceled->status, 'keyed' => str_starts_with((string) $canceled->lastResponse()?->idempotencyKey, 'tributary-php-')];

        $endpoint = $tributary->webhookEndpoints->create(['url' => 'http://127.0.0.1:9/hook', 'enabled_events' => ['payment.pending']]);
        $updated = $tributary->webhookEndpoints->update($endpoint->id, ['description' => 'orders']);
        $rotated = $tributary->webhookEndpoints->rotateSecret($endpoint->id, ['expire_previous_in_seconds' => 0]);
        $out['endpoint'] = [
            'secretShown' => str_starts_with($endpoint->secret, 'whsec_'),
            'description' => $updated->description,
            'listed' => array_map(static fn ($e) => $e->id === $endpoint->id, $tributary->webhookEndpoints->list()->data),
            'rotated' => $rotated->secret !== $endpoint->secret,
        ];
        $events = [];
        foreach ($tributary->events->list(['object_id' => $pending->id, 'limit' => 1]) as $event) {
            $events[] = $event->type;
        }
        $out['events'] = $events;
        $event = $tributary->events->list(['object_id' => $pending->id, 'type' => 'payment.pending'])->data[0];
        $out['eventObject'] = (new ReflectionClass(Webhook::eventObject($tributary->events->retrieve($event->id))))->getShortName();
        $out['resent'] = count($tributary->events->resend($event->id, ['endpoint_id' => $endpoint->id])->data);
        $out['deliveries'] = count($tributary->events->deliveries($event->id)->data);
        $out['deleted'] = $tributary->webhookEndpoints->delete($endpoint->id)->deleted;
        $out['deletedGone'] = attempt(static fn () => $tributary->webhookEndpoints->retrieve($endpoint->id))['class'] ?? null;
        $out['callbackSecret'] = $tributary->callbackSecret->retrieve()->object;
        $out['callbackRotated'] = $tributary->callbackSecret->rotate(['expire_previous_in_seconds' => 0])->object;
        $audit = [];
        foreach ($tributary->auditLog->list(['object_id' => $endpoint->id, 'limit' => 2]) as $entry) {
            $audit[] = $entry->action . ' by ' . $entry->actor->type;
        }
        $out['auditLog'] = $audit;
        return $out;
    },

    // Create, retrieve, list (paged), select with the client_secret, expire: against the real server.
    'checkouts' => static function (): array {
        $in = input();
        $tributary = client();
        $checkout = $tributary->checkouts->create(['amount' => '150000.00', 'currency' => 'IDR', 'reference_no' => $in['reference_no'], 'email' => 'payer@example.com']);
        $second = $tributary->checkouts->create(['amount' => 150000, 'currency' => 'IDR', 'reference_no' => $in['reference_no_2']]);
        $listed = [];
        foreach ($tributary->checkouts->list(['limit' => 1, 'status' => 'open']) as $c) {
            $listed[] = $c->id;
        }
        $retrieved = $tributary->checkouts->retrieve($checkout->id);
        $wrong = attempt(static fn () => $tributary->checkouts->select($checkout->id, ['client_secret' => 'cs_secret_wrong', 'channel' => 'bank']));
        $selected = $tributary->checkouts->select($checkout->id, ['client_secret' => (string) $checkout->client_secret, 'channel' => 'bank']);
        $payment = Checkouts::payment($selected);
        $expired = $tributary->checkouts->expire($checkout->id);
        return [
            'id' => $checkout->id,
            'second' => $second->id,
            'status' => $checkout->status,
            'amount' => $checkout->amount,
            'money' => (string) $checkout->money(),
            'secretShown' => is_string($checkout->client_secret) && $checkout->client_secret !== '',
            'createKeyed' => str_starts_with((string) $checkout->lastResponse()?->idempotencyKey, 'tributary-php-'),
            'createStatus' => $checkout->lastResponse()?->statusCode,
            'retrieved' => ['id' => $retrieved->id, 'secret' => $retrieved->client_secret, 'payment' => $retrieved->payment],
            'listed' => $listed,
            'wrongSecret' => ['class' => $wrong['class'] ?? null, 'errorCode' => $wrong['errorCode'] ?? null],
            'selected' => [
                'id' => $selected->id,
                'status' => $selected->status,
                'paymentIsObject' => is_array($selected->payment),
                'paymentId' => $payment?->id,
                'paymentStatus' => $payment?->status,
                'channel' => $payment?->channel,
                'amount' => $payment?->amount,
                'money' => (string) $payment?->money(),
                'instructions' => $payment?->instructions === null ? null : (new ReflectionClass($payment->instructions))->getShortName(),
                'rawInstructions' => is_array($selected->payment) && is_array($selected->payment['instructions'] ?? null),
                'payments' => $selected->payments,
                'keyed' => str_starts_with((string) $selected->lastResponse()?->idempotencyKey, 'tributary-php-'),
            ],
            'expired' => ['status' => $expired->status, 'closed' => $expired->closed_at !== null],
            'paymentAfter' => $tributary->payments->retrieve((string) $payment?->id)->status,
        ];
    },

    // Create (keyed, a replay by key), a visit, retrieve, list (paged), deactivate: against the real server.
    'payment-links' => static function (): array {
        $in = input();
        $tributary = client();
        $fixed = $tributary->paymentLinks->create(['amount' => '150000.00', 'currency' => 'IDR', 'description' => 'Yoga class', 'max_uses' => 2]);
        $bounded = $tributary->paymentLinks->create(['amount_min' => '50000', 'amount_max' => '2000000.00', 'currency' => 'IDR'], ['idempotencyKey' => $in['key']]);
        $again = $tributary->paymentLinks->create(['amount_min' => '50000', 'amount_max' => '2000000.00', 'currency' => 'IDR'], ['idempotencyKey' => $in['key']]);
        $tooPrecise = attempt(static fn () => $tributary->paymentLinks->create(['amount' => '10.001', 'currency' => 'IDR']));
        $visit = $tributary->paymentLinks->startCheckout($fixed->id);
        $outside = attempt(static fn () => $tributary->paymentLinks->startCheckout($bounded->id, ['amount' => '100']));
        $entered = $tributary->paymentLinks->startCheckout($bounded->id, ['amount' => '75000.50']);
        $retrieved = $tributary->paymentLinks->retrieve($fixed->id);
        $listed = [];
        foreach ($tributary->paymentLinks->list(['limit' => 1]) as $l) {
            $listed[] = $l->id;
        }
        $deactivated = $tributary->paymentLinks->deactivate($fixed->id);
        $inactive = attempt(static fn () => $tributary->paymentLinks->startCheckout($fixed->id));
        return [
            'id' => $fixed->id,
            'bounded' => $bounded->id,
            'status' => $fixed->status,
            'url' => $fixed->url,
            'amount' => $fixed->amount,
            'money' => (string) $fixed->money(),
            'bounds' => [$bounded->amount, $bounded->amount_min, $bounded->amount_max],
            'createKeyed' => str_starts_with((string) $fixed->lastResponse()?->idempotencyKey, 'tributary-php-'),
            'createStatus' => $fixed->lastResponse()?->statusCode,
            'replay' => ['id' => $again->id, 'replayed' => $again->lastResponse()?->replayed],
            'tooPrecise' => ['class' => $tooPrecise['class'] ?? null, 'issue' => $tooPrecise['issue'] ?? null],
            'visit' => ['id' => $visit->id, 'amount' => $visit->amount, 'secretShown' => is_string($visit->client_secret) && $visit->client_secret !== '', 'keyed' => $visit->lastResponse()?->idempotencyKey !== null],
            'outside' => ['class' => $outside['class'] ?? null, 'param' => $outside['param'] ?? null, 'issue' => $outside['issue'] ?? null],
            'entered' => $entered->amount,
            'retrieved' => ['open' => $retrieved->checkouts->open, 'remaining' => $retrieved->remaining_uses, 'collected' => $retrieved->totals->collected],
            'listed' => $listed,
            'deactivated' => ['status' => $deactivated->status, 'at' => $deactivated->deactivated_at !== null],
            'inactive' => ['class' => $inactive['class'] ?? null, 'errorCode' => $inactive['errorCode'] ?? null],
        ];
    },

    'webhook-verify' => static function (): array {
        $in = input();
        $secret = env('TRIBUTARY_WEBHOOK_SECRET');
        $now = (int) $in['now'];
        $event = Webhook::verify($in['body'], $in['headers'], $secret, now: $now);
        $object = Webhook::eventObject($event);
        $tampered = str_replace('"pending"', '"succeeded"', $in['body']);
        $interop = [];
        foreach ($in['signed'] as $case) {
            $interop[] = attempt(static fn () => Webhook::verifySignature($case['body'], $case['headers'], $secret))['ok'];
        }
        $rotation = [];
        foreach (['TRIBUTARY_WEBHOOK_SECRET', 'TRIBUTARY_WEBHOOK_SECRET_NEW'] as $name) {
            $rotation[] = Webhook::verify($in['rotated']['body'], $in['rotated']['headers'], env($name), now: $now)->id;
        }
        $signedAt = (int) $in['signAt'];
        return [
            'id' => $event->id,
            'type' => $event->type,
            'objectClass' => $object === null ? null : (new ReflectionClass($object))->getShortName(),
            'objectId' => $event->data->object['id'],
            'amount' => $object instanceof Payment ? $object->amount : null,
            'rawAmount' => $event->data->object['amount'],
            'money' => $object === null ? null : (string) $object->money(),
            'tampered' => attempt(static fn () => Webhook::verify($tampered, $in['headers'], $secret, now: $now)),
            'late' => attempt(static fn () => Webhook::verify($in['body'], $in['headers'], $secret, now: $now + 301)),
            'interop' => $interop,
            'rotation' => $rotation,
            'phpSignature' => Webhook::sign('msg_php', $signedAt, $in['body'], $secret),
        ];
    },
];

$name = $argv[1] ?? '';
$scenario = $scenarios[$name] ?? null;
if ($scenario === null) {
    fwrite(STDERR, "unknown scenario '$name'; one of: " . implode(', ', array_keys($scenarios)) . "\n");
    exit(2);
}
echo json_encode($scenario(), JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES), "\n";
