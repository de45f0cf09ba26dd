<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\CallbackSecret as CallbackSecretObject;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * The secret that signs callback_url requests.
 *
 * @phpstan-import-type RotateCallbackSecretBody from Operations
 */
final class CallbackSecret extends AbstractResource
{
    /**
     * Shown on the first read only (`secret` is null afterwards).
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function retrieve(RequestOptions|array|null $options = null): CallbackSecretObject
    {
        return $this->object(CallbackSecretObject::class, 'getCallbackSecret', options: $options);
    }

    /**
     * @param RotateCallbackSecretBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function rotate(array $params = [], RequestOptions|array|null $options = null): CallbackSecretObject
    {
        return $this->object(CallbackSecretObject::class, 'rotateCallbackSecret', body: $params, options: $options);
    }
}
