<?php

declare(strict_types=1);

namespace Tributary\Http;

/**
 * No HTTP answer. `kind` tells the retry logic what may have happened on the server:
 * - NOT_SENT: the connection was never made (refused, unresolvable): nothing can have happened,
 *   so any request may be sent again;
 * - TIMEOUT / LOST: the request may have been received and done; only a read or an operation
 *   deduplicated by its Idempotency-Key may be sent again.
 */
final class TransportException extends \RuntimeException
{
    public const NOT_SENT = 'not_sent';
    public const TIMEOUT = 'timeout';
    public const LOST = 'lost';

    /** @param self::NOT_SENT|self::TIMEOUT|self::LOST $kind */
    public function __construct(public readonly string $kind, string $message, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
    }
}
