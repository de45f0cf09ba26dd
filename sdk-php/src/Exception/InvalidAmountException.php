<?php

declare(strict_types=1);

namespace Tributary\Exception;

/**
 * An amount the SDK refuses before sending anything: not a decimal, a binary float, more
 * fractional digits than the currency has, not positive, too large, or an unknown currency.
 * `issue` uses the API's field-issue codes where one exists (docs/errors.md).
 */
final class InvalidAmountException extends \InvalidArgumentException implements ExceptionInterface
{
    /**
     * @param string $issue `amount_not_a_number`, `amount_is_float`, `amount_too_precise`,
     *                      `amount_not_positive`, `amount_too_large`, `unknown_currency` or `currency_mismatch`.
     */
    public function __construct(public readonly string $issue, string $message)
    {
        parent::__construct($message);
    }
}
