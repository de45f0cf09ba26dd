<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 401: the API key is missing, unknown, expired or revoked. */
class AuthenticationException extends TributaryException
{
}
