<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 503: the service or every provider is unavailable for now; retry with the same Idempotency-Key. */
class ServiceUnavailableException extends TributaryException
{
}
