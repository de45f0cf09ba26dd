<?php

declare(strict_types=1);

namespace Tributary;

use Tributary\Http\CurlTransport;
use Tributary\Http\HttpTransport;
use Tributary\Internal\ApiRequester;
use Tributary\Internal\RetryPolicy;
use Tributary\Resource\AuditLog;
use Tributary\Resource\Balance;
use Tributary\Resource\CallbackSecret;
use Tributary\Resource\Checkouts;
use Tributary\Resource\Events;
use Tributary\Resource\PaymentLinks;
use Tributary\Resource\PaymentMethods;
use Tributary\Resource\Payments;
use Tributary\Resource\Reconciliation;
use Tributary\Resource\Refunds;
use Tributary\Resource\Sandbox;
use Tributary\Resource\SettlementExceptions;
use Tributary\Resource\Settlements;
use Tributary\Resource\WebhookEndpoints;

/**
 * The Tributary API client: the resources of the API as methods, with the names of the Node SDK.
 *
 * ```php
 * $tributary = new TributaryClient(getenv('TRIBUTARY_API_KEY'), baseUrl: 'http://127.0.0.1:8080');
 * $payment = $tributary->payments->create(
 *     ['amount' => '150000.00', 'currency' => 'IDR', 'reference_no' => 'order-1001'],
 * );
 * ```
 */
final class TributaryClient
{
    /** This SDK's version, sent in the User-Agent. */
    public const VERSION = '0.1.0';
    public const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
    public const DEFAULT_TIMEOUT_MS = 60_000;

    public readonly Payments $payments;
    public readonly Refunds $refunds;
    public readonly Checkouts $checkouts;
    public readonly PaymentLinks $paymentLinks;
    public readonly PaymentMethods $paymentMethods;
    public readonly Balance $balance;
    public readonly Settlements $settlements;
    public readonly SettlementExceptions $settlementExceptions;
    public readonly Reconciliation $reconciliation;
    public readonly WebhookEndpoints $webhookEndpoints;
    public readonly Events $events;
    public readonly CallbackSecret $callbackSecret;
    public readonly AuditLog $auditLog;
    public readonly Sandbox $sandbox;
    /** Webhook verification needs no API key: also usable on its own as `Webhook::verify()`. */
    public readonly Webhook $webhooks;

    /**
     * @param string $apiKey `sk_test_…` or `sk_live_…`.
     * @param string $baseUrl Where the API is served (default: what `npm start` serves).
     * @param int $maxRetries Retries after the first try of one call (see RetryPolicy for which answers).
     * @param int $timeoutMs Deadline of one try, body included (a create may try several providers).
     * @param ?string $apiVersion Sent as `Api-Version` (a dated version); null: the merchant's pinned version.
     * @param ?HttpTransport $transport Default: CurlTransport. Psr18Transport wraps any PSR-18 client.
     * @param ?\Closure(int): void $sleep Waits between tries, in ms (default usleep); tests replace it.
     * @param ?\Closure(): float $random A number in [0, 1) for the jitter (default: random_int based).
     */
    public function __construct(
        #[\SensitiveParameter] string $apiKey,
        string $baseUrl = self::DEFAULT_BASE_URL,
        int $maxRetries = RetryPolicy::DEFAULT_MAX_RETRIES,
        int $timeoutMs = self::DEFAULT_TIMEOUT_MS,
        ?string $apiVersion = null,
        ?HttpTransport $transport = null,
        ?\Closure $sleep = null,
        ?\Closure $random = null,
    ) {
        if (PHP_INT_SIZE < 8) {
            throw new \LogicException('Tributary: amounts need 64-bit integers; this PHP build is 32-bit');
        }
        if (trim($apiKey) === '' || preg_match('/[\x00-\x20\x7F]/', $apiKey) === 1) {
            throw new \InvalidArgumentException('Tributary: an API key (sk_test_… or sk_live_…) is required');
        }
        if ($apiVersion !== null && preg_match('/^[\x21-\x7E]+$/D', $apiVersion) !== 1) {
            throw new \InvalidArgumentException('Tributary: apiVersion is a dated version such as 2026-11-01');
        }
        if (preg_match('#^https?://[^/?\#]+(/[^?\#]*)?$#iD', $baseUrl) !== 1) {
            throw new \InvalidArgumentException('Tributary: baseUrl is an http(s) URL such as https://api.example.com');
        }
        if ($timeoutMs < 1) {
            throw new \InvalidArgumentException('Tributary: timeoutMs must be a positive number of milliseconds');
        }
        $requester = new ApiRequester(
            $apiKey,
            rtrim($baseUrl, '/'),
            RetryPolicy::clampRetries($maxRetries),
            $timeoutMs,
            $apiVersion,
            $transport ?? new CurlTransport(),
            $sleep ?? static function (int $ms): void {
                usleep($ms * 1000);
            },
            $random ?? static fn (): float => random_int(0, PHP_INT_MAX - 1) / PHP_INT_MAX,
        );
        $this->payments = new Payments($requester);
        $this->refunds = new Refunds($requester);
        $this->checkouts = new Checkouts($requester);
        $this->paymentLinks = new PaymentLinks($requester);
        $this->paymentMethods = new PaymentMethods($requester);
        $this->balance = new Balance($requester);
        $this->settlements = new Settlements($requester);
        $this->settlementExceptions = new SettlementExceptions($requester);
        $this->reconciliation = new Reconciliation($requester);
        $this->webhookEndpoints = new WebhookEndpoints($requester);
        $this->events = new Events($requester);
        $this->callbackSecret = new CallbackSecret($requester);
        $this->auditLog = new AuditLog($requester);
        $this->sandbox = new Sandbox($requester);
        $this->webhooks = new Webhook();
    }
}
