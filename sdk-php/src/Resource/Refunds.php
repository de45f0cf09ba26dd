<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Refund;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * Refunds: create (of a payment), retrieve.
 *
 * @phpstan-import-type RefundPaymentBody from Operations
 */
final class Refunds extends AbstractResource
{
    /**
     * POST /payment/{id}/refund, with an Idempotency-Key: all that is left of the payment (no
     * amount) or part of it (`['amount' => '50000']`, in the payment's currency).
     *
     * @param RefundPaymentBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(string $paymentId, array $params = [], RequestOptions|array|null $options = null): Refund
    {
        return $this->object(Refund::class, 'refundPayment', ['id' => $paymentId], body: $params, options: $options);
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): Refund
    {
        return $this->object(Refund::class, 'getRefund', ['id' => $id], options: $options);
    }
}
