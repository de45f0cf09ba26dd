<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** No answer: the connection failed, was dropped or timed out (`errorCode` `connection_error` or `timeout`). */
class ApiConnectionException extends TributaryException
{
}
