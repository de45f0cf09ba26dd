<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 409: the object's state forbids the operation, or a live payment already uses the `reference_no`. */
class ConflictException extends TributaryException
{
}
