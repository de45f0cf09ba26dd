<?php

declare(strict_types=1);

namespace Tributary;

/**
 * Per-call options, the last argument of every method (an instance or an array with these keys):
 *
 * ```php
 * $tributary->payments->create($params, ['idempotencyKey' => 'order-1001-create']);
 * $tributary->payments->create($params, new RequestOptions(idempotencyKey: 'order-1001-create', maxRetries: 5));
 * ```
 */
final class RequestOptions
{
    /**
     * @param ?string $idempotencyKey For operations that take one (create, cancel, refund,
     *     reconciliation): the key of this logical call. Default: a new random key per call, reused by
     *     every retry of that call. Pass your own (e.g. derived from your order id) to make a retry
     *     safe across processes and restarts too.
     * @param ?int $maxRetries Retries after the first try (default: the client's, 2).
     * @param ?int $timeoutMs Deadline of one try, body included (default: the client's, 60 000 ms).
     */
    public function __construct(
        public readonly ?string $idempotencyKey = null,
        public readonly ?int $maxRetries = null,
        public readonly ?int $timeoutMs = null,
    ) {
    }

    /** @param self|array{idempotencyKey?: ?string, maxRetries?: ?int, timeoutMs?: ?int}|null $options */
    public static function from(self|array|null $options): self
    {
        if ($options instanceof self) {
            return $options;
        }
        $options ??= [];
        $unknown = array_diff(array_keys($options), ['idempotencyKey', 'maxRetries', 'timeoutMs']);
        if ($unknown !== []) {
            throw new \InvalidArgumentException('Tributary: unknown request option ' . implode(', ', $unknown));
        }
        return new self(
            $options['idempotencyKey'] ?? null,
            $options['maxRetries'] ?? null,
            $options['timeoutMs'] ?? null,
        );
    }
}
