<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** A webhook delivery whose signature, timestamp or headers do not check out: do not trust it. */
class WebhookVerificationException extends TributaryException
{
}
