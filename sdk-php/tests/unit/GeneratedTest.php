<?php

declare(strict_types=1);

use Tributary\Generated\ApiSpec;
use Tributary\Generated\Currencies;
use Tributary\Generated\EventTypes;
use Tributary\Generated\Operations;
use Tributary\Model;
use Tributary\Tests\FakeTransport;
use Tributary\TributaryClient;

use function Tributary\Tests\assertMatches;
use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;

/*
 * The generated code (scripts/gen-sdk-php.ts) and the hand-written client agree: every operation
 * of the document has a method, every class the table names exists. Whether the generated files
 * match the document is `node --import tsx scripts/gen-sdk-php.ts --check`; whether the document
 * is the one the server serves is test/sdk/sdk-php.test.ts.
 */

return [
    'every operation of the document is called by a resource method' => static function (): void {
        $called = [];
        foreach (glob(__DIR__ . '/../../src/Resource/*.php') ?: [] as $file) {
            preg_match_all("/->(?:object|page)\\(\\s*[A-Za-z]+::class,\\s*'([A-Za-z]+)'|->text\\('([A-Za-z]+)'/", (string) file_get_contents($file), $m);
            $called = [...$called, ...array_filter($m[1]), ...array_filter($m[2])];
        }
        $operations = array_keys(Operations::ALL);
        sort($operations);
        $called = array_values(array_unique($called));
        sort($called);
        assertSame([], array_values(array_diff($operations, $called)), 'operations without a method');
        assertSame($operations, $called);
        assertTrue(count($operations) >= 28, 'the merchant API has at least 28 operations');
    },
    'every class the tables name is a Model' => static function (): void {
        foreach (Operations::ALL as $id => $op) {
            foreach (['model', 'listItem'] as $column) {
                if ($op[$column] !== null) {
                    assertTrue(is_subclass_of($op[$column], Model::class), "$id.$column");
                }
            }
            foreach ($op['pathParams'] as $name) {
                assertTrue(str_contains($op['path'], '{' . $name . '}'), "$id: {$op['path']} has {$name}");
            }
            assertSame($op['idempotencyKey'], in_array($id, ['createPayment', 'cancelPayment', 'refundPayment', 'createReconciliation', 'createCheckout', 'createPaymentLink'], true), "$id keyed");
        }
        foreach (EventTypes::OBJECT_MODELS as $type => $class) {
            assertTrue(is_subclass_of($class, Model::class), $type);
        }
    },
    'the document fingerprint and version are recorded' => static function (): void {
        assertMatches('/^[0-9a-f]{64}$/D', ApiSpec::OPENAPI_SHA256);
        assertMatches('/^\d{4}-\d{2}-\d{2}$/D', ApiSpec::API_VERSION);
    },
    'the currency table is the API\'s' => static function (): void {
        assertSame(2, Currencies::MINOR_UNITS['IDR']);
        assertSame(2, Currencies::MINOR_UNITS['USD']);
        assertSame(0, Currencies::MINOR_UNITS['JPY']);
        assertSame(0, Currencies::MINOR_UNITS['VND']);
        assertSame(3, Currencies::MINOR_UNITS['KWD']);
        assertSame(4, Currencies::MINOR_UNITS['CLF']);
    },
    'the client refuses a missing key, a bad base URL or timeout' => static function (): void {
        $transport = new FakeTransport();
        assertThrows(InvalidArgumentException::class, static fn () => new TributaryClient('', transport: $transport));
        assertThrows(InvalidArgumentException::class, static fn () => new TributaryClient("sk_test_x\r\nX: y", transport: $transport));
        assertThrows(InvalidArgumentException::class, static fn () => new TributaryClient('sk_test_x', baseUrl: 'ftp://x', transport: $transport));
        assertThrows(InvalidArgumentException::class, static fn () => new TributaryClient('sk_test_x', timeoutMs: 0, transport: $transport));
        assertThrows(InvalidArgumentException::class, static fn () => new TributaryClient('sk_test_x', apiVersion: "2026\n", transport: $transport));
        $client = new TributaryClient('sk_test_x', baseUrl: 'https://api.example.com/', transport: $transport);
        assertThrows(InvalidArgumentException::class, static fn () => $client->payments->retrieve(''), 'an empty id');
        assertThrows(InvalidArgumentException::class, static fn () => $client->payments->retrieve('pay_1', ['idempotencyKy' => 'x']), 'an unknown option');
        assertSame([], $transport->requests);
    },
    'requests carry the key, the SDK version and the pinned API version; ids are escaped' => static function (): void {
        $transport = new FakeTransport([FakeTransport::error(404, 'resource_not_found')]);
        $client = new TributaryClient('sk_test_x', baseUrl: 'https://api.example.com/', apiVersion: '2026-11-01', transport: $transport);
        try {
            $client->payments->retrieve('pay_1/../x');
        } catch (Tributary\Exception\NotFoundException) {
        }
        $request = $transport->requests[0];
        assertSame('https://api.example.com/payment/pay_1%2F..%2Fx', $request->url);
        assertSame('Bearer sk_test_x', $request->headers['authorization']);
        assertSame('2026-11-01', $request->headers['api-version']);
        assertMatches('#^tributary-php/' . preg_quote(TributaryClient::VERSION, '#') . ' PHP/#', $request->headers['user-agent']);
        assertSame(null, $request->body, 'a GET has no body');
    },
];
