<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Balance as BalanceObject;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * Balances per currency: pending, available, refunds in flight.
 *
 * @phpstan-import-type GetBalanceQuery from Operations
 */
final class Balance extends AbstractResource
{
    /**
     * `['verify' => true]` re-derives and checks the ledger as well.
     *
     * @param GetBalanceQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function retrieve(array $query = [], RequestOptions|array|null $options = null): BalanceObject
    {
        return $this->object(BalanceObject::class, 'getBalance', query: $query, options: $options);
    }
}
