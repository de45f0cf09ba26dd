<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\SimulatePaymentResponse;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * Sandbox keys only: make the simulated provider act.
 *
 * @phpstan-import-type SimulatePaymentBody from Operations
 */
final class Sandbox extends AbstractResource
{
    /**
     * Pay (`['outcome' => 'succeeded']`, optionally with an `amount`), fail, expire, reverse or settle a payment.
     *
     * @param SimulatePaymentBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function simulate(
        string $paymentId,
        array $params,
        RequestOptions|array|null $options = null,
    ): SimulatePaymentResponse {
        return $this->object(
            SimulatePaymentResponse::class,
            'simulatePayment',
            ['id' => $paymentId],
            body: $params,
            options: $options,
        );
    }
}
