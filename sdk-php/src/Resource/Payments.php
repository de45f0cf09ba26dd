<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Payment;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Payments: create, retrieve, list (auto-paginating), cancel.
 *
 * @phpstan-import-type CreatePaymentBody from Operations
 * @phpstan-import-type ListPaymentsQuery from Operations
 * @phpstan-import-type CancelPaymentBody from Operations
 */
final class Payments extends AbstractResource
{
    /**
     * POST /payment/create, with an Idempotency-Key (generated once per call unless given).
     * The amount is a decimal string or an int in major units (`'150000.00'`), or a Money.
     *
     * @param CreatePaymentBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(array $params, RequestOptions|array|null $options = null): Payment
    {
        return $this->object(Payment::class, 'createPayment', body: $params, options: $options);
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): Payment
    {
        return $this->object(Payment::class, 'getPayment', ['id' => $id], options: $options);
    }

    /**
     * Newest first: the first page, which `foreach` pages through to the last payment.
     *
     * @param ListPaymentsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<Payment>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(Payment::class, 'listPayments', [], $query, $options);
    }

    /**
     * POST /payment/{id}/cancel, with an Idempotency-Key.
     *
     * @param CancelPaymentBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function cancel(string $id, array $params = [], RequestOptions|array|null $options = null): Payment
    {
        return $this->object(Payment::class, 'cancelPayment', ['id' => $id], body: $params, options: $options);
    }

    /**
     * POST /payment/{id}/erase_payer_data: a payer's erasure request, for a final payment
     * (docs/payer-data.md). Erasing again answers the erased payment unchanged.
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function erasePayerData(string $id, RequestOptions|array|null $options = null): Payment
    {
        return $this->object(Payment::class, 'erasePayerData', ['id' => $id], body: [], options: $options);
    }
}
