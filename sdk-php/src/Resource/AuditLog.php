<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\AuditEntry;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * The audit log (docs/audit-log.md): who changed what, newest first.
 *
 * @phpstan-import-type ListAuditLogQuery from Operations
 */
final class AuditLog extends AbstractResource
{
    /**
     * @param ListAuditLogQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<AuditEntry>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(AuditEntry::class, 'listAuditLog', [], $query, $options);
    }
}
