<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 404: no such object for this merchant and environment (or no such route). */
class NotFoundException extends TributaryException
{
}
