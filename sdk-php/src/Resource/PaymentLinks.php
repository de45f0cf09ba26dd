<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Checkout;
use Tributary\Generated\Model\PaymentLink;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Payment links (docs/checkout.md, section 8): a reusable page address with a fixed amount, or one
 * the payer enters between bounds; each visit makes a checkout. Create, retrieve, list
 * (auto-paginating), deactivate, and startCheckout (a visit).
 *
 * @phpstan-import-type CreatePaymentLinkBody from Operations
 * @phpstan-import-type ListPaymentLinksQuery from Operations
 * @phpstan-import-type StartPaymentLinkCheckoutBody from Operations
 */
final class PaymentLinks extends AbstractResource
{
    /**
     * POST /payment_link/create, with an Idempotency-Key (generated once per call unless given).
     * Send `amount`, or `amount_min` and `amount_max`: decimal strings or ints in major units, or
     * Money, checked against the currency as for payments. The answer's `url` is the page to share.
     *
     * @param CreatePaymentLinkBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(array $params, RequestOptions|array|null $options = null): PaymentLink
    {
        return $this->object(PaymentLink::class, 'createPaymentLink', body: $params, options: $options);
    }

    /**
     * The link with its checkouts by status, what they collected and the uses left.
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function retrieve(string $id, RequestOptions|array|null $options = null): PaymentLink
    {
        return $this->object(PaymentLink::class, 'getPaymentLink', ['id' => $id], options: $options);
    }

    /**
     * Newest first: the first page, which `foreach` pages through to the last link.
     *
     * @param ListPaymentLinksQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<PaymentLink>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(PaymentLink::class, 'listPaymentLinks', [], $query, $options);
    }

    /**
     * POST /payment_link/{id}/deactivate: no more visits, final. Checkouts it already made stay
     * payable; an inactive link is answered unchanged.
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function deactivate(string $id, RequestOptions|array|null $options = null): PaymentLink
    {
        return $this->object(PaymentLink::class, 'deactivatePaymentLink', ['id' => $id], body: [], options: $options);
    }

    /**
     * POST /payment_link/{id}/checkout: a visit, as the hosted link page makes it when the payer
     * presses Pay (no API key is needed there). `amount` only for a link the payer enters the
     * amount of. Each call is a new visit holding one of the link's uses while its checkout is
     * open, so a lost answer is not retried. The answer carries the checkout's `client_secret`.
     *
     * @param StartPaymentLinkCheckoutBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function startCheckout(string $id, array $params = [], RequestOptions|array|null $options = null): Checkout
    {
        return $this->object(Checkout::class, 'startPaymentLinkCheckout', ['id' => $id], body: $params, options: $options);
    }
}
