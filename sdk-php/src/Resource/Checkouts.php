<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Generated\Model\Checkout;
use Tributary\Generated\Model\Payment;
use Tributary\Generated\Operations;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * Checkouts (docs/checkout.md): create, retrieve, list (auto-paginating), expire, and select (the
 * payer's choice of how to pay, authorised by the checkout's `client_secret`).
 *
 * @phpstan-import-type CreateCheckoutBody from Operations
 * @phpstan-import-type ListCheckoutsQuery from Operations
 * @phpstan-import-type SelectCheckoutMethodBody from Operations
 */
final class Checkouts extends AbstractResource
{
    /**
     * POST /checkout/create, with an Idempotency-Key (generated once per call unless given).
     * The amount is a decimal string or an int in major units (`'150000.00'`), or a Money, as for
     * payments. The answer is the only one that carries the `client_secret`.
     *
     * @param CreateCheckoutBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function create(array $params, RequestOptions|array|null $options = null): Checkout
    {
        return $this->object(Checkout::class, 'createCheckout', body: $params, options: $options);
    }

    /** @param RequestOptions|array<string, mixed>|null $options */
    public function retrieve(string $id, RequestOptions|array|null $options = null): Checkout
    {
        return $this->object(Checkout::class, 'getCheckout', ['id' => $id], options: $options);
    }

    /**
     * Newest first: the first page, which `foreach` pages through to the last checkout.
     *
     * @param ListCheckoutsQuery $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<Checkout>
     */
    public function list(array $query = [], RequestOptions|array|null $options = null): Page
    {
        return $this->page(Checkout::class, 'listCheckouts', [], $query, $options);
    }

    /**
     * POST /checkout/{id}/expire: ends an open checkout now and cancels its pending payment
     * (an expired checkout is answered unchanged; a completed one is 409 `checkout_not_open`).
     *
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function expire(string $id, RequestOptions|array|null $options = null): Checkout
    {
        return $this->object(Checkout::class, 'expireCheckout', ['id' => $id], body: [], options: $options);
    }

    /**
     * POST /checkout/{id}/select: makes the payment for the chosen channel (canceling the previous
     * pending one) and answers the checkout with `payment` expanded; `Checkouts::payment()` gives
     * it as a Payment. Authorised by the `client_secret` in `$params`, not by the API key.
     *
     * Retried as the keyed operations are (a generated Idempotency-Key, reused by every try). The
     * server does not store that key here: a retry after a lost answer is a new selection, which
     * cancels the payment the lost one made first, so the checkout still never collects twice.
     *
     * @param SelectCheckoutMethodBody $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    public function select(string $id, array $params, RequestOptions|array|null $options = null): Checkout
    {
        return $this->object(Checkout::class, 'selectCheckoutMethod', ['id' => $id], body: $params, options: $options);
    }

    /**
     * The checkout's `payment` as a Payment when the answer expanded it (select, the
     * `checkout.completed` event), with amounts as exact decimal strings and `money()`; null when
     * it is only an id or null.
     *
     * @throws \UnexpectedValueException when the expanded payment is not a Payment
     */
    public static function payment(Checkout $checkout): ?Payment
    {
        return is_array($checkout->payment) ? Payment::fromArray($checkout->payment) : null;
    }
}
