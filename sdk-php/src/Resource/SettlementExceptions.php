<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\SettlementException;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Settlement report lines that could not be applied (docs/money.md).
 *
 * @phpstan-import-type ListSettlementExceptionsQuery from Operations
 */
final class SettlementExceptions extends AbstractResource
{
    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): SettlementException
    {
        return $this->object(SettlementException::class, 'getSettlementException', ['id' => $id], options: $options);
    }

    /**
     * @param ListSettlementExceptionsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<SettlementException>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(SettlementException::class, 'listSettlementExceptions', [], $query, $options);
    }
}
