<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Reconciliation as ReconciliationObject;
use Tributary\Generated\Model\ReconciliationLine;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Reconciliation of a provider's settlement report with what Tributary recorded.
 *
 * @phpstan-import-type CreateReconciliationBody from Operations
 * @phpstan-import-type ListReconciliationLinesQuery from Operations
 */
final class Reconciliation extends AbstractResource
{
    /**
     * POST /reconciliation/create, with an Idempotency-Key. `from` and `to` may be RFC 3339
     * strings or DateTimeInterface objects.
     *
     * @param CreateReconciliationBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(array $params, RequestOptions|array|null $options = null): ReconciliationObject
    {
        return $this->object(ReconciliationObject::class, 'createReconciliation', body: $params, options: $options);
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): ReconciliationObject
    {
        return $this->object(ReconciliationObject::class, 'getReconciliation', ['id' => $id], options: $options);
    }

    /**
     * Every line of a reconciliation, paged (`foreach` for all of them).
     *
     * @param ListReconciliationLinesQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<ReconciliationLine>
     */
    public function lines(string $id, array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(ReconciliationLine::class, 'listReconciliationLines', ['id' => $id], $query, $options);
    }

    /**
     * The lines as CSV text.
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function exportCsv(string $id, RequestOptions|array|null $options = null): string
    {
        return $this->text('exportReconciliationLines', ['id' => $id], $options);
    }
}
