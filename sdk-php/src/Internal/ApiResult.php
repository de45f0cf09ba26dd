<?php

declare(strict_types=1);

namespace Tributary\Internal;

use Tributary\ResponseMeta;

/** @internal A successful answer: its decoded JSON (or text) and what the SDK knows about it. */
final class ApiResult
{
    public function __construct(
        public readonly mixed $json,
        public readonly string $text,
        public readonly ResponseMeta $meta,
    ) {
    }
}
