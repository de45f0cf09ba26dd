<?php

declare(strict_types=1);

use Tributary\Exception\InvalidAmountException;
use Tributary\Generated\Model\Payment;
use Tributary\Generated\Model\PaymentInstructionsVirtualAccount;
use Tributary\Internal\Json;
use Tributary\Internal\JsonNumber;
use Tributary\Money;
use Tributary\Tests\FakeTransport;

use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;
use function Tributary\Tests\fakeClient;
use function Tributary\Tests\paymentFixtureText;

/*
 * Amounts are exact decimals end to end: parsed with the API's rules (src/lib/money.ts), written
 * as the JSON number of their exact text, and read back from the response text, never a float.
 */

function refusedAmount(string $issue, callable $fn, string $message = ''): void
{
    $e = assertThrows(InvalidAmountException::class, $fn, $message);
    assertSame($issue, $e->issue, $message);
}

/** The body a create sends for these params, through a transport that answers a payment. */
function sentBody(array $params, string $operation = 'create'): string
{
    $transport = new FakeTransport([FakeTransport::json(201, paymentFixtureText())]);
    $client = fakeClient($transport);
    if ($operation === 'create') {
        $client->payments->create($params);
    } else {
        $transport = new FakeTransport([FakeTransport::json(201, refundJson())]);
        fakeClient($transport)->refunds->create('pay_1', $params);
    }
    return (string) $transport->requests[0]->body;
}

function refundJson(): string
{
    return '{"id":"ref_1","object":"refund","environment":"sandbox","payment_id":"pay_1","amount":50000.5,"currency":"IDR",'
        . '"status":"pending","source":"payment","reason":null,"failure_code":null,"failure_message":null,"version":1,'
        . '"created_at":"2026-11-21T10:00:00.000Z","updated_at":"2026-11-21T10:00:00.000Z","completed_at":null}';
}

return [
    '10.005 USD is refused, never rounded' => static function (): void {
        refusedAmount('amount_too_precise', static fn () => Money::of('10.005', 'USD'));
        refusedAmount('amount_too_precise', static fn () => Money::of('0.001', 'USD'));
        refusedAmount('amount_too_precise', static fn () => Money::of('1e-3', 'USD'));
    },
    '10.1 and 10.10 are the same amount' => static function (): void {
        assertTrue(Money::of('10.1', 'USD')->equals(Money::of('10.10', 'USD')));
        assertSame('10.10', Money::of('10.1', 'USD')->amount());
        assertSame(1010, Money::of('10.1', 'USD')->minorUnits());
        assertSame('10.10', Money::of('10.100000', 'USD')->amount(), 'trailing zeros carry no value');
        assertTrue(!Money::of('10.1', 'USD')->equals(Money::of('10.1', 'SGD')), 'another currency');
    },
    'JPY and VND have no minor digits; KWD has 3; IDR 2' => static function (): void {
        assertSame('5000', Money::of('5000', 'JPY')->amount());
        assertSame('5000', Money::of('5000.0', 'JPY')->amount());
        assertSame(5000, Money::of(5000, 'JPY')->minorUnits());
        refusedAmount('amount_too_precise', static fn () => Money::of('5000.5', 'JPY'));
        refusedAmount('amount_too_precise', static fn () => Money::of('0.5', 'VND'));
        assertSame('1.234', Money::of('1.234', 'KWD')->amount());
        refusedAmount('amount_too_precise', static fn () => Money::of('1.2345', 'KWD'));
        assertSame('150000.00', Money::of('150000', 'IDR')->amount());
        assertSame(15000000, Money::of('150000.00', 'IDR')->minorUnits());
        assertSame(2, Money::minorUnitDigits('IDR'));
    },
    'floats are refused, ints and decimal strings accepted' => static function (): void {
        refusedAmount('amount_is_float', static fn () => Money::of(10.1, 'USD'));
        refusedAmount('amount_is_float', static fn () => Money::of(10.0, 'USD'));
        refusedAmount('amount_not_a_number', static fn () => Money::of(null, 'USD'));
        assertSame('10.00', Money::of(10, 'USD')->amount());
    },
    'only JSON number text is a decimal' => static function (): void {
        foreach (['', ' 10', '10 ', '010', '+10', '1,000.00', '10.', '.5', 'NaN', 'INF', '0x1A', '1_000'] as $text) {
            refusedAmount('amount_not_a_number', static fn () => Money::of($text, 'USD'), "'$text'");
        }
        assertSame('100.00', Money::of('1e2', 'USD')->amount());
        assertSame('15.00', Money::of('1.5E1', 'USD')->amount());
        assertSame('0.00', Money::of('0', 'USD')->amount());
        assertSame('0.00', Money::of('0e999999', 'USD')->amount(), 'zero with a huge exponent');
        refusedAmount('amount_too_large', static fn () => Money::of('1e999999', 'USD'));
        refusedAmount('amount_too_precise', static fn () => Money::of('1e-999999', 'USD'));
    },
    'at most 15 significant digits of minor units' => static function (): void {
        assertSame('9999999999999.99', Money::of('9999999999999.99', 'USD')->amount());
        assertSame(Money::MAX_MINOR_UNITS, Money::of('999999999999999', 'JPY')->minorUnits());
        refusedAmount('amount_too_large', static fn () => Money::of('10000000000000.00', 'USD'));
        refusedAmount('amount_too_large', static fn () => Money::of('99999999999999999999999', 'JPY'));
        refusedAmount('amount_too_large', static fn () => Money::ofMinor(Money::MAX_MINOR_UNITS + 1, 'USD'));
    },
    'negative amounts parse (a response can hold one); formatting keeps the sign' => static function (): void {
        assertSame('-0.05', Money::of('-0.05', 'USD')->amount());
        assertSame('-0.05', Money::ofMinor(-5, 'USD')->amount());
        assertSame('10.10 USD', (string) Money::ofMinor(1010, 'USD'));
        assertTrue(!Money::of('-1', 'USD')->isPositive());
    },
    'unknown or lower-case currencies are refused' => static function (): void {
        refusedAmount('unknown_currency', static fn () => Money::of('10', 'idr'));
        refusedAmount('unknown_currency', static fn () => Money::of('10', 'XXX'));
        refusedAmount('unknown_currency', static fn () => Money::of('10', 'HRK'), 'withdrawn');
    },
    'Json::decode keeps fractional numbers as their exact text, ints as ints' => static function (): void {
        $decoded = Json::decode('{"a":10.1,"b":150000,"c":"x 1.5 \\" 2.5","d":[1e5,-0.25,0.1,12345678901234567890],"e":null,"f":true}');
        assertSame(['a' => '10.1', 'b' => 150000, 'c' => 'x 1.5 " 2.5', 'd' => ['1e5', '-0.25', '0.1', '12345678901234567890'], 'e' => null, 'f' => true], $decoded);
        assertSame('0.30000000000000004', Json::decode('0.30000000000000004'), 'text, not the float 0.3');
        assertSame(['a\\', '1.5', '\\"2.5'], Json::decode('["a\\\\", 1.5, "\\\\\\"2.5"]'), 'escaped backslashes and quotes');
        foreach (['{"a":1.}', '{"a":1.2.3}', '{"a":1e}', '{"a":01.5}', '[-]', ''] as $invalid) {
            assertThrows(JsonException::class, static fn () => Json::decode($invalid), "'$invalid' stays invalid");
        }
    },
    'Json::decode reads a large body with many escapes in linear time' => static function (): void {
        $text = '{"x":"' . str_repeat('ab\\"c\\\\d 1.5 ', 200_000) . '","n":[' . implode(',', array_fill(0, 50_000, '10.25')) . ']}';
        $decoded = Json::decode($text);
        assertSame('10.25', $decoded['n'][49_999]);
        assertSame(2_200_000, strlen($decoded['x']));
    },
    'Json::encode writes amounts from their text and refuses floats' => static function (): void {
        assertSame(
            '{"amount":150000.00,"metadata":{},"events":[],"at":"2026-11-21T03:00:00.000Z","note":"é/\\"x\\""}',
            Json::encode(
                ['amount' => new JsonNumber('150000.00'), 'metadata' => [], 'events' => [], 'at' => new DateTimeImmutable('2026-11-21T10:00:00+07:00'), 'note' => 'é/"x"'],
                ['metadata'],
            ),
        );
        assertSame('{}', Json::encode([]));
        assertThrows(InvalidArgumentException::class, static fn () => Json::encode(['amount' => 10.1]));
        assertThrows(InvalidArgumentException::class, static fn () => Json::encode(['nested' => ['x' => 0.5]]));
        assertThrows(InvalidArgumentException::class, static fn () => Json::encode(['bad' => "\xFF"]), 'invalid UTF-8');
        assertThrows(InvalidArgumentException::class, static fn () => new JsonNumber('1e5'));
    },
    'a create sends the amount as the exact JSON number with the currency digits' => static function (): void {
        $base = ['currency' => 'IDR', 'reference_no' => 'order-1'];
        assertSame('{"currency":"IDR","reference_no":"order-1","amount":150000.00}', sentBody($base + ['amount' => '150000']));
        assertSame('{"currency":"IDR","reference_no":"order-1","amount":150000.00}', sentBody($base + ['amount' => 150000]));
        assertSame('{"currency":"IDR","reference_no":"order-1","amount":150000.50}', sentBody($base + ['amount' => Money::of('150000.5', 'IDR')]));
        assertSame('{"amount":10.10,"currency":"USD","reference_no":"r","metadata":{}}', sentBody(['amount' => '10.1', 'currency' => 'USD', 'reference_no' => 'r', 'metadata' => []]));
    },
    'a create refuses a bad amount before sending anything' => static function (): void {
        $cases = [
            'amount_too_precise' => ['amount' => '10.005', 'currency' => 'USD'],
            'amount_is_float' => ['amount' => 10.5, 'currency' => 'USD'],
            'amount_not_positive' => ['amount' => '0.00', 'currency' => 'USD'],
            'currency_mismatch' => ['amount' => Money::of('10', 'SGD'), 'currency' => 'USD'],
            'unknown_currency' => ['amount' => '10', 'currency' => 'usd'],
        ];
        foreach ($cases as $issue => $params) {
            $transport = new FakeTransport();
            refusedAmount($issue, static fn () => fakeClient($transport)->payments->create($params + ['reference_no' => 'r']), $issue);
            assertSame([], $transport->requests, "$issue: nothing sent");
        }
    },
    'a refund (no currency in the body) sends the decimal text as given, or a Money' => static function (): void {
        assertSame('{"amount":50000.5}', sentBody(['amount' => '50000.5'], 'refund'));
        assertSame('{"amount":50000}', sentBody(['amount' => 50000], 'refund'));
        assertSame('{"amount":50000.50,"reason":"duplicate"}', sentBody(['amount' => Money::of('50000.5', 'IDR'), 'reason' => 'duplicate'], 'refund'));
        assertSame('{}', sentBody([], 'refund'), 'no amount: everything that is left');
        refusedAmount('amount_is_float', static fn () => sentBody(['amount' => 0.1], 'refund'));
        refusedAmount('amount_not_positive', static fn () => sentBody(['amount' => '0.0'], 'refund'));
        refusedAmount('amount_not_a_number', static fn () => sentBody(['amount' => '5e4'], 'refund'));
    },
    'a response keeps every amount exact; money() adds the currency digits' => static function (): void {
        $payment = Payment::fromArray(Json::decode(paymentFixtureText()));
        assertSame('10.1', $payment->amount);
        assertSame('0.35', $payment->fee);
        assertSame('9.75', $payment->net);
        assertSame('0.05', $payment->amount_refunded);
        assertSame('10.10', $payment->money()->amount());
        assertSame(975, $payment->money('net')->minorUnits());
        assertTrue($payment->instructions instanceof PaymentInstructionsVirtualAccount);
        assertSame('10.10', $payment->instructions->money()->amount());
        assertSame(['customer_id' => 'cus_123'], $payment->metadata);
        assertSame('10.1', $payment->toArray()['amount']);
        assertThrows(InvalidArgumentException::class, static fn () => $payment->money('status'));
    },
];
