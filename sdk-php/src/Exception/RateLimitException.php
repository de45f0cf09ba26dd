<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 429: too many requests; `retryAfterSeconds()` says when to come back. */
class RateLimitException extends TributaryException
{
}
