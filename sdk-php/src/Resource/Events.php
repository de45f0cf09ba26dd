<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Event;
use Tributary\Generated\Model\ListEventDeliveriesResponse;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * The event log, and its deliveries.
 *
 * @phpstan-import-type ListEventsQuery from Operations
 * @phpstan-import-type RedeliverEventBody from Operations
 */
final class Events extends AbstractResource
{
    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): Event
    {
        return $this->object(Event::class, 'getEvent', ['id' => $id], options: $options);
    }

    /**
     * Newest first; `foreach` pages through all of them. `['type' => 'payment.*', 'object_id' => 'pay_…']`.
     *
     * @param ListEventsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<Event>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(Event::class, 'listEvents', [], $query, $options);
    }

    /**
     * POST /event/{id}/redeliver: send the event again (to every subscriber, one endpoint, or the
     * callback_url). Not retried after a lost answer.
     *
     * @param RedeliverEventBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function resend(
        string $id,
        array $params = [],
        RequestOptions|array|null $options = null,
    ): ListEventDeliveriesResponse {
        return $this->object(
            ListEventDeliveriesResponse::class,
            'redeliverEvent',
            ['id' => $id],
            body: $params,
            options: $options,
        );
    }

    /**
     * The delivery attempts of one event, oldest first.
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function deliveries(string $id, RequestOptions|array|null $options = null): ListEventDeliveriesResponse
    {
        return $this->object(
            ListEventDeliveriesResponse::class,
            'listEventDeliveries',
            ['id' => $id],
            options: $options,
        );
    }
}
