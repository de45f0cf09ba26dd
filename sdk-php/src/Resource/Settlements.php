<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Settlement;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Settlement batches: what a provider paid out, with fees.
 *
 * @phpstan-import-type ListSettlementsQuery from Operations
 */
final class Settlements extends AbstractResource
{
    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): Settlement
    {
        return $this->object(Settlement::class, 'getSettlement', ['id' => $id], options: $options);
    }

    /**
     * @param ListSettlementsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<Settlement>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(Settlement::class, 'listSettlements', [], $query, $options);
    }
}
