<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\PaymentMethodList;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * What can be offered for an amount: channels, instruments, bounds, expiry.
 *
 * @phpstan-import-type ListPaymentMethodsQuery from Operations
 */
final class PaymentMethods extends AbstractResource
{
    /**
     * `['amount' => '150000.00', 'currency' => 'IDR']` (the amount may also be a Money).
     *
     * @param ListPaymentMethodsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): PaymentMethodList
    {
        return $this->object(PaymentMethodList::class, 'listPaymentMethods', query: $query, options: $options);
    }
}
