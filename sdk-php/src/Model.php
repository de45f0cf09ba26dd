<?php

declare(strict_types=1);

namespace Tributary;

/**
 * The base of every generated object (src/Generated/Model). Each generated class has one typed
 * readonly property per field of its OpenAPI schema, with the JSON field names (`reference_no`).
 *
 * Amounts are `string` properties holding the exact decimal text the API sent (`"150000"`,
 * `"10.5"`), never floats; `money('amount')` gives them as Money with the currency's minor units.
 */
abstract class Model
{
    private ?ResponseMeta $sdkLastResponse = null;

    /** @param array<string, mixed> $sdkData The decoded JSON object, amounts as exact strings. */
    protected function __construct(private readonly array $sdkData)
    {
    }

    /**
     * Builds the object from decoded JSON (Json::decode keeps amounts as exact strings).
     *
     * @param array<string, mixed> $data
     * @throws \UnexpectedValueException when a field is missing or of the wrong type
     */
    abstract public static function fromArray(array $data): static;

    /**
     * The object as decoded from JSON, amounts as exact decimal strings (e.g. to store or log).
     *
     * @return array<string, mixed>
     */
    public function toArray(): array
    {
        return $this->sdkData;
    }

    /** The HTTP answer this object came from; null for nested objects and webhook events. */
    public function lastResponse(): ?ResponseMeta
    {
        return $this->sdkLastResponse;
    }

    /** @internal The client attaches the answer's metadata to the objects it returns. */
    public function withLastResponse(ResponseMeta $meta): static
    {
        $copy = clone $this;
        $copy->sdkLastResponse = $meta;
        return $copy;
    }

    /**
     * An amount field of this object as Money in the object's `currency`:
     * `$payment->money('amount')->amount()` is `"150000.00"` for an IDR payment. Null when the field is null.
     */
    public function money(string $field = 'amount'): ?Money
    {
        $vars = get_object_vars($this);
        if (!array_key_exists($field, $vars) || !is_string($vars['currency'] ?? null)) {
            throw new \InvalidArgumentException(static::class . " has no amount field '$field' with a currency");
        }
        $value = $vars[$field];
        if ($value === null) {
            return null;
        }
        if (!is_string($value)) {
            throw new \InvalidArgumentException(static::class . "::\$$field is not an amount");
        }
        return Money::of($value, $vars['currency']);
    }
}
