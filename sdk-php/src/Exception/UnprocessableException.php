<?php

declare(strict_types=1);

namespace Tributary\Exception;

/** 422: understood but refused (currency, amount bounds, channel, refund rules, endpoint limit). */
class UnprocessableException extends TributaryException
{
}
