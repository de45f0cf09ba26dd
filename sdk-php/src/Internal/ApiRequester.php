<?php

declare(strict_types=1);

namespace Tributary\Internal;

use Tributary\Exception\ApiConnectionException;
use Tributary\Exception\ApiException;
use Tributary\Exception\InvalidAmountException;
use Tributary\Exception\TributaryException;
use Tributary\Generated\Operations;
use Tributary\Http\HttpRequest;
use Tributary\Http\HttpResponse;
use Tributary\Http\HttpTransport;
use Tributary\Http\TransportException;
use Tributary\Money;
use Tributary\RequestOptions;
use Tributary\ResponseMeta;
use Tributary\TributaryClient;

/**
 * @internal The one place requests are made. Each call:
 * - takes method, path, Idempotency-Key use and amount fields from the generated Operations table
 *   (and KEYED_BY_THE_SDK);
 * - generates an Idempotency-Key once per logical call (unless given) and sends the same key on
 *   every retry, so a retry after a lost answer returns the first result instead of doing the work
 *   twice (docs/idempotency.md);
 * - writes amounts as the exact JSON number of their decimal text, checked against the currency;
 * - retries as RetryPolicy says, at most `maxRetries` times, waiting with jittered backoff and
 *   never less than `Retry-After`.
 */
final class ApiRequester
{
    /** Printable ASCII, no leading or trailing space, 1-255 characters (docs/idempotency.md). */
    private const IDEMPOTENCY_KEY = '/^[\x21-\x7E](?:[\x20-\x7E]{0,253}[\x21-\x7E])?$/D';

    /**
     * Operations the document gives no Idempotency-Key but this SDK sends one for and retries as
     * keyed: POST /checkout/{id}/select makes a payment, and the server never collects twice for
     * one checkout (a new selection cancels the previous pending payment; one live payment per
     * reference), so a retry after a lost answer is safe. The server ignores the key there: a retry
     * is a new selection, not a replay (docs/checkout.md).
     */
    private const KEYED_BY_THE_SDK = ['selectCheckoutMethod'];

    /**
     * @param \Closure(int): void $sleep Waits this many milliseconds.
     * @param \Closure(): float $random A number in [0, 1), for the jitter.
     */
    public function __construct(
        #[\SensitiveParameter] private readonly string $apiKey,
        private readonly string $baseUrl,
        private readonly int $maxRetries,
        private readonly int $timeoutMs,
        private readonly ?string $apiVersion,
        private readonly HttpTransport $transport,
        private readonly \Closure $sleep,
        private readonly \Closure $random,
    ) {
    }

    /** Keeps the API key out of var_dump() and print_r() (PHP 8.2 also drops it from stack traces). */
    public function __debugInfo(): array
    {
        return ['baseUrl' => $this->baseUrl, 'apiKey' => substr($this->apiKey, 0, 8) . '…'];
    }

    /**
     * @param array<string, string> $pathParams
     * @param array<string, mixed> $query
     * @param ?array<string, mixed> $body
     * @throws TributaryException
     */
    public function request(
        string $operationId,
        array $pathParams,
        array $query,
        ?array $body,
        RequestOptions $options,
    ): ApiResult {
        $op = Operations::ALL[$operationId] ?? throw new \LogicException("unknown operation $operationId");
        $url = $this->url($op['path'], $op['pathParams'], $pathParams, $query);
        $keyed = $op['idempotencyKey'] || in_array($operationId, self::KEYED_BY_THE_SDK, true);
        $idempotencyKey = null;
        if ($keyed) {
            $idempotencyKey = $options->idempotencyKey ?? 'tributary-php-' . self::uuid4();
            if (preg_match(self::IDEMPOTENCY_KEY, $idempotencyKey) !== 1) {
                throw new \InvalidArgumentException(
                    'Tributary: an Idempotency-Key is 1-255 printable ASCII characters, no leading or trailing space',
                );
            }
        }
        $headers = [
            'authorization' => 'Bearer ' . $this->apiKey,
            'accept' => $op['response'] === 'json' ? 'application/json' : '*/*',
            'user-agent' => 'tributary-php/' . TributaryClient::VERSION . ' PHP/' . PHP_VERSION,
        ];
        if ($idempotencyKey !== null) {
            $headers['idempotency-key'] = $idempotencyKey;
        }
        if ($this->apiVersion !== null) {
            $headers['api-version'] = $this->apiVersion;
        }
        $payload = null;
        if ($op['body']) {
            $headers['content-type'] = 'application/json';
            $payload = Json::encode(self::withExactAmounts($body ?? [], $op['amountFields']), $op['objectFields']);
        }
        // Whether a retry can never do the work twice: reads, and operations the server dedupes by key.
        $safe = $op['method'] === 'GET' || $keyed;
        $maxRetries = RetryPolicy::clampRetries($options->maxRetries ?? $this->maxRetries);
        $timeoutMs = $options->timeoutMs ?? $this->timeoutMs;
        if ($timeoutMs < 1) {
            throw new \InvalidArgumentException('Tributary: timeoutMs must be a positive number of milliseconds');
        }
        $request = new HttpRequest($op['method'], $url, $headers, $payload, $timeoutMs);

        for ($attempt = 1;; $attempt += 1) {
            $notSent = false;
            try {
                $response = $this->transport->send($request);
                if ($response->status >= 200 && $response->status < 300) {
                    return $this->result($response, $op['response'] === 'json', $idempotencyKey, $attempt);
                }
                $error = ErrorFactory::fromResponse(
                    $response->status,
                    self::errorBody($response),
                    $response->headers,
                    $idempotencyKey,
                );
            } catch (TransportException $e) {
                $notSent = $e->kind === TransportException::NOT_SENT;
                $timedOut = $e->kind === TransportException::TIMEOUT;
                $path = (string) parse_url($url, PHP_URL_PATH);
                $error = new ApiConnectionException(
                    $timedOut ? 'timeout' : 'connection_error',
                    $timedOut
                        ? "No answer from Tributary within $timeoutMs ms ({$op['method']} $path)."
                        : "Could not reach Tributary or the connection was lost ({$op['method']} $path).",
                    idempotencyKey: $idempotencyKey,
                    previous: $e,
                );
            }
            $retryAfterSeconds = $error->retryAfterSeconds();
            $retryAfterMs = $retryAfterSeconds === null ? null : $retryAfterSeconds * 1000;
            $retriable = $attempt <= $maxRetries
                && ($retryAfterMs === null || $retryAfterMs <= RetryPolicy::MAX_RETRY_AFTER_MS)
                && RetryPolicy::isRetriable($error, $safe, $keyed, $notSent);
            if (!$retriable) {
                throw $error;
            }
            ($this->sleep)(RetryPolicy::delayMs($attempt, $retryAfterMs, $this->random));
        }
    }

    private function result(HttpResponse $response, bool $json, ?string $idempotencyKey, int $attempt): ApiResult
    {
        $meta = new ResponseMeta(
            $response->status,
            $response->header('request-id'),
            $idempotencyKey,
            $response->header('idempotent-replayed') === 'true',
            $attempt,
        );
        if (!$json) {
            return new ApiResult(null, $response->body, $meta);
        }
        try {
            $decoded = Json::decode($response->body);
        } catch (\JsonException $e) {
            throw new ApiException(
                'invalid_response',
                'Tributary answered with invalid JSON.',
                $response->status,
                $meta->requestId,
                headers: $response->headers,
                idempotencyKey: $idempotencyKey,
                previous: $e,
            );
        }
        return new ApiResult($decoded, $response->body, $meta);
    }

    private static function errorBody(HttpResponse $response): mixed
    {
        if (!str_contains((string) $response->header('content-type'), 'json') || $response->body === '') {
            return null;
        }
        try {
            return Json::decode($response->body);
        } catch (\JsonException) {
            return null;
        }
    }

    /**
     * @param list<string> $names
     * @param array<string, string> $params
     * @param array<string, mixed> $query
     */
    private function url(string $path, array $names, array $params, array $query): string
    {
        foreach ($names as $name) {
            $value = $params[$name] ?? null;
            if (!is_string($value) || $value === '') {
                throw new \InvalidArgumentException("Tributary: $name must be a non-empty string");
            }
            $path = str_replace('{' . $name . '}', rawurlencode($value), $path);
        }
        $pairs = [];
        foreach ($query as $name => $value) {
            if ($value !== null) {
                $pairs[] = rawurlencode((string) $name) . '=' . rawurlencode(self::queryValue((string) $name, $value));
            }
        }
        return $this->baseUrl . $path . ($pairs === [] ? '' : '?' . implode('&', $pairs));
    }

    private static function queryValue(string $name, mixed $value): string
    {
        return match (true) {
            is_bool($value) => $value ? 'true' : 'false',
            is_int($value), is_string($value) => (string) $value,
            $value instanceof Money => $value->amount(),
            $value instanceof \DateTimeInterface => Json::dateTime($value),
            is_float($value) => throw Money::floatRefused(),
            default => throw new \InvalidArgumentException(
                "Tributary: query parameter '$name' cannot be a " . get_debug_type($value),
            ),
        };
    }

    /**
     * Replaces each amount of a body by the exact JSON number of its decimal text. With a
     * `currency` in the same body (payment create) it must fit the currency's minor units; a
     * Money must be in that currency. Without one (refund, simulate: the payment's currency
     * applies) it must be a positive plain decimal, or a Money, and the API checks the digits.
     *
     * @param array<string, mixed> $body
     * @param list<string> $amountFields
     * @return array<string, mixed>
     */
    private static function withExactAmounts(array $body, array $amountFields): array
    {
        $currency = is_string($body['currency'] ?? null) ? $body['currency'] : null;
        foreach ($amountFields as $field) {
            $value = $body[$field] ?? null;
            if ($value !== null) {
                $body[$field] = new JsonNumber(self::amountText($value, $currency));
            }
        }
        return $body;
    }

    private static function amountText(mixed $value, ?string $currency): string
    {
        if ($value instanceof Money) {
            if ($currency !== null && $value->currency !== $currency) {
                throw new InvalidAmountException(
                    'currency_mismatch',
                    "The amount is in {$value->currency}, the request in $currency.",
                );
            }
            $money = $value;
        } elseif ($currency !== null) {
            $money = Money::of($value, $currency);
        } else {
            if (is_float($value)) {
                throw Money::floatRefused();
            }
            $text = is_int($value) ? (string) $value : $value;
            if (!is_string($text) || preg_match('/^(0|[1-9][0-9]*)(\.[0-9]+)?$/D', $text) !== 1) {
                throw new InvalidAmountException(
                    'amount_not_a_number',
                    'An amount must be a plain decimal string such as \'50000.00\', an int, or a Money.',
                );
            }
            if (trim(str_replace('.', '', $text), '0') === '') {
                throw new InvalidAmountException('amount_not_positive', 'The amount must be greater than 0.');
            }
            return $text;
        }
        if (!$money->isPositive()) {
            throw new InvalidAmountException('amount_not_positive', 'The amount must be greater than 0.');
        }
        return $money->amount();
    }

    /** A random (version 4) UUID. */
    private static function uuid4(): string
    {
        $bytes = random_bytes(16);
        $bytes[6] = chr((ord($bytes[6]) & 0x0F) | 0x40);
        $bytes[8] = chr((ord($bytes[8]) & 0x3F) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($bytes), 4));
    }
}
