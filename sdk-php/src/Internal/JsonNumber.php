<?php

declare(strict_types=1);

namespace Tributary\Internal;

/** @internal The exact text of a JSON number, written as is by Json::encode (amounts). */
final class JsonNumber
{
    public function __construct(public readonly string $text)
    {
        if (preg_match('/^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/D', $text) !== 1) {
            throw new \InvalidArgumentException("'$text' is not a plain decimal number");
        }
    }
}
