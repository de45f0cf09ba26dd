<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** Other 5xx (logged on the server with `requestId`), or an answer the SDK cannot read (`invalid_response`). */
class ApiException extends TributaryException
{
}
