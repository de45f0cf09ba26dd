<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** Every exception the SDK throws implements this: `catch (ExceptionInterface $e)` catches them all. */
interface ExceptionInterface extends \Throwable
{
}
