<?php

declare(strict_types=1);

use Tributary\Generated\Model\Event;
use Tributary\Generated\Model\Payment;
use Tributary\Page;
use Tributary\Tests\FakeTransport;

use function Tributary\Tests\assertSame;
use function Tributary\Tests\assertThrows;
use function Tributary\Tests\assertTrue;
use function Tributary\Tests\fakeClient;
use function Tributary\Tests\paymentFixtureText;

/** A page of payments with these ids, as the API answers `GET /payment`. */
function paymentsPage(array $ids, bool $hasMore): string
{
    $items = array_map(static fn (string $id): string => str_replace('"pay_01M8BQE5S13FNR9M3GYSZ7ZZD5"', "\"$id\"", paymentFixtureText()), $ids);
    $next = $hasMore ? '"' . end($ids) . '"' : 'null';
    return '{"object":"list","data":[' . implode(',', $items) . '],"has_more":' . ($hasMore ? 'true' : 'false') . ',"next_cursor":' . $next . '}';
}

function eventsPage(array $ids, bool $hasMore): string
{
    $events = array_map(
        static fn (string $id): string => '{"id":"' . $id . '","type":"payment.pending","created_at":"2026-11-21T10:00:00.000Z",'
            . '"api_version":"2026-11-01","data":{"object":{"id":"pay_1","amount":0.5},"previous_attributes":{}}}',
        $ids,
    );
    return '{"object":"list","data":[' . implode(',', $events) . '],"has_more":' . ($hasMore ? 'true' : 'false') . '}';
}

return [
    'foreach pages through every page by next_cursor, lazily' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, paymentsPage(['pay_7', 'pay_6', 'pay_5'], true)),
            FakeTransport::json(200, paymentsPage(['pay_4', 'pay_3', 'pay_2'], true)),
            FakeTransport::json(200, paymentsPage(['pay_1'], false)),
        ]);
        $page = fakeClient($transport)->payments->list(['limit' => 3, 'status' => 'succeeded']);
        assertSame(1, count($transport->requests), 'the first page only, until iterated');
        assertSame(3, count($page->data));
        assertTrue($page->data[0] instanceof Payment);
        assertSame('pay_5', $page->next_cursor);
        assertSame(true, $page->has_more);
        $ids = [];
        foreach ($page as $payment) {
            $ids[] = $payment->id;
        }
        assertSame(['pay_7', 'pay_6', 'pay_5', 'pay_4', 'pay_3', 'pay_2', 'pay_1'], $ids);
        $urls = array_map(static fn ($r) => $r->url, $transport->requests);
        assertSame('http://tributary.test/payment?limit=3&status=succeeded', $urls[0]);
        assertSame('http://tributary.test/payment?starting_after=pay_5&limit=3&status=succeeded', $urls[1]);
        assertSame('http://tributary.test/payment?starting_after=pay_2&limit=3&status=succeeded', $urls[2]);
    },
    'iterator keys run on across pages (iterator_to_array keeps every item)' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, paymentsPage(['pay_2'], true)),
            FakeTransport::json(200, paymentsPage(['pay_1'], false)),
        ]);
        $all = iterator_to_array(fakeClient($transport)->payments->list(['limit' => 1]));
        assertSame([0, 1], array_keys($all));
    },
    'a list without next_cursor pages by the last id' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, eventsPage(['evt_3', 'evt_2'], true)),
            FakeTransport::json(200, eventsPage(['evt_1'], false)),
        ]);
        $ids = [];
        foreach (fakeClient($transport)->events->list(['type' => 'payment.*', 'limit' => 2]) as $event) {
            assertTrue($event instanceof Event);
            assertSame('0.5', $event->data->object['amount']);
            $ids[] = $event->id;
        }
        assertSame(['evt_3', 'evt_2', 'evt_1'], $ids);
        assertSame('http://tributary.test/event?starting_after=evt_2&type=payment.%2A&limit=2', $transport->requests[1]->url);
    },
    'toArray stops at its limit and fetches no more pages than needed' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, paymentsPage(['pay_4', 'pay_3'], true)),
            FakeTransport::json(200, paymentsPage(['pay_2', 'pay_1'], false)),
        ]);
        $items = fakeClient($transport)->payments->list(['limit' => 2])->toArray(2);
        assertSame(2, count($items));
        assertSame(1, count($transport->requests));
        assertThrows(InvalidArgumentException::class, static fn () => fakeClient(new FakeTransport([FakeTransport::json(200, paymentsPage([], false))]))->payments->list()->toArray(0));
    },
    'a list that does not advance stops with an error instead of looping' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, paymentsPage(['pay_2'], true)),
            FakeTransport::json(200, paymentsPage(['pay_2'], true)),
        ]);
        assertThrows(RuntimeException::class, static function () use ($transport): void {
            foreach (fakeClient($transport)->payments->list() as $_) {
            }
        });
        assertSame(2, count($transport->requests));
    },
    'nextPage() walks one page at a time; each page has its own lastResponse' => static function (): void {
        $transport = new FakeTransport([
            FakeTransport::json(200, paymentsPage(['pay_2'], true), ['request-id' => 'req_1']),
            FakeTransport::json(200, paymentsPage(['pay_1'], false), ['request-id' => 'req_2']),
        ]);
        $first = fakeClient($transport)->payments->list(['limit' => 1]);
        $second = $first->nextPage();
        assertTrue($second instanceof Page);
        assertSame('req_1', $first->lastResponse()->requestId);
        assertSame('req_2', $second->lastResponse()->requestId);
        assertSame(null, $second->nextPage());
    },
];
