<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 400, 413, 415: the request is malformed or has invalid fields (`details`, `param`). */
class InvalidRequestException extends TributaryException
{
}
