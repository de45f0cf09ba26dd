<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\DeleteWebhookEndpointResponse;
use Tributary\Generated\Model\ListWebhookEndpointsResponse;
use Tributary\Generated\Model\WebhookEndpoint;
use Tributary\Generated\Model\WebhookEndpointWithSecret;
use Tributary\Generated\Operations;
use Tributary\RequestOptions;

/**
 * Where events are delivered. None of these calls is retried after a lost answer: a retry could
 * do it twice (a second endpoint, a second rotation).
 *
 * @phpstan-import-type CreateWebhookEndpointBody from Operations
 * @phpstan-import-type UpdateWebhookEndpointBody from Operations
 * @phpstan-import-type RotateWebhookEndpointSecretBody from Operations
 */
final class WebhookEndpoints extends AbstractResource
{
    /**
     * The answer carries the signing `secret` (`whsec_…`): the only time it is shown.
     *
     * @param CreateWebhookEndpointBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(array $params, RequestOptions|array|null $options = null): WebhookEndpointWithSecret
    {
        return $this->object(
            WebhookEndpointWithSecret::class,
            'createWebhookEndpoint',
            body: $params,
            options: $options,
        );
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): WebhookEndpoint
    {
        return $this->object(WebhookEndpoint::class, 'getWebhookEndpoint', ['id' => $id], options: $options);
    }

    /**
     * All endpoints of the key's environment (at most 20: one page).
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function list(RequestOptions|array|null $options = null): ListWebhookEndpointsResponse
    {
        return $this->object(ListWebhookEndpointsResponse::class, 'listWebhookEndpoints', options: $options);
    }

    /**
     * @param UpdateWebhookEndpointBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function update(string $id, array $params, RequestOptions|array|null $options = null): WebhookEndpoint
    {
        return $this->object(
            WebhookEndpoint::class,
            'updateWebhookEndpoint',
            ['id' => $id],
            body: $params,
            options: $options,
        );
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function delete(string $id, RequestOptions|array|null $options = null): DeleteWebhookEndpointResponse
    {
        return $this->object(
            DeleteWebhookEndpointResponse::class,
            'deleteWebhookEndpoint',
            ['id' => $id],
            options: $options,
        );
    }

    /**
     * A new secret; the old one keeps signing too for `expire_previous_in_seconds` (default 24 h).
     *
     * @param RotateWebhookEndpointSecretBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function rotateSecret(
        string $id,
        array $params = [],
        RequestOptions|array|null $options = null,
    ): WebhookEndpointWithSecret {
        return $this->object(
            WebhookEndpointWithSecret::class,
            'rotateWebhookEndpointSecret',
            ['id' => $id],
            body: $params,
            options: $options,
        );
    }
}
