<?php

declare(strict_types=1);

namespace Tributary\Exception;

/**
 * `idempotency_request_in_progress` (409, left after the retries ran out) or
 * `idempotency_key_reused` (422: the key was used with another body).
 */
class IdempotencyException extends TributaryException
{
}
