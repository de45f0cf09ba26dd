<?php

declare(strict_types=1);

namespace Tributary;

use Tributary\Exception\WebhookVerificationException;
use Tributary\Generated\EventTypes;
use Tributary\Generated\Model\Event;
use Tributary\Internal\Json;

/**
 * Verifies webhook deliveries the way Standard Webhooks specifies (https://www.standardwebhooks.com),
 * as the Node SDK's `webhooks.verify` does. Needs no API key.
 *
 * ```php
 * $payload = file_get_contents('php://input');          // the raw body, as received
 * try {
 *     $event = Webhook::verify($payload, getallheaders(), getenv('TRIBUTARY_WEBHOOK_SECRET'));
 * } catch (WebhookVerificationException) {
 *     http_response_code(400);
 *     exit;
 * }
 * if ($event->type === 'payment.succeeded') { fulfil($event->data->object['id']); }
 * ```
 */
final class Webhook
{
    /** How far `webhook-timestamp` may be from now, either way (Standard Webhooks). */
    public const DEFAULT_TOLERANCE_SECONDS = 300;
    private const SECRET_PREFIX = 'whsec_';

    /**
     * Checks the signature and the timestamp, then returns the event.
     *
     * `$payload` must be the raw body (`file_get_contents('php://input')`, PSR-7
     * `(string) $request->getBody()`, Laravel `$request->getContent()`): a body decoded and encoded
     * again no longer matches. The signature is `v1,` + base64 HMAC-SHA256 of
     * `{webhook-id}.{webhook-timestamp}.{body}` keyed with the base64 part of the `whsec_…` secret;
     * `webhook-signature` may carry several, space-separated (during a secret rotation), and one
     * match is enough. Compared in constant time. The timestamp must be within
     * `$toleranceSeconds` of now, so a captured delivery cannot be replayed later.
     *
     * @param array<string, string|list<string>>|object $headers Any casing: `getallheaders()`, `$_SERVER`
     *     (`HTTP_WEBHOOK_ID`), PSR-7 / Laravel / Symfony header arrays, or a PSR-7 message.
     * @param ?int $now Unix seconds to check against (default: the current time).
     * @throws WebhookVerificationException
     */
    public static function verify(
        string $payload,
        array|object $headers,
        #[\SensitiveParameter] string $secret,
        int $toleranceSeconds = self::DEFAULT_TOLERANCE_SECONDS,
        ?int $now = null,
    ): Event {
        self::verifySignature($payload, $headers, $secret, $toleranceSeconds, $now);
        try {
            $decoded = Json::decode($payload);
        } catch (\JsonException) {
            throw self::refused('The webhook body is not JSON.');
        }
        if (!is_array($decoded) || array_is_list($decoded)) {
            throw self::refused('The webhook body is not an event object.');
        }
        try {
            return Event::fromArray($decoded);
        } catch (\UnexpectedValueException $e) {
            throw self::refused('The webhook body is not an event: ' . $e->getMessage());
        }
    }

    /**
     * The signature and timestamp check alone, for any Standard Webhooks payload.
     *
     * @param array<string, string|list<string>>|object $headers
     * @throws WebhookVerificationException
     */
    public static function verifySignature(
        string $payload,
        array|object $headers,
        #[\SensitiveParameter] string $secret,
        int $toleranceSeconds = self::DEFAULT_TOLERANCE_SECONDS,
        ?int $now = null,
    ): void {
        $key = self::secretKey($secret);
        $id = self::header($headers, 'webhook-id');
        $timestamp = self::header($headers, 'webhook-timestamp');
        $signatures = self::header($headers, 'webhook-signature');
        if ($id === null || $timestamp === null || $signatures === null) {
            throw self::refused('Missing webhook-id, webhook-timestamp or webhook-signature header.');
        }
        if (preg_match('/^[0-9]{1,12}$/D', $timestamp) !== 1) {
            throw self::refused('Invalid webhook-timestamp header.');
        }
        $now ??= time();
        $sent = (int) $timestamp;
        if ($now - $sent > $toleranceSeconds) {
            throw self::refused('The webhook timestamp is too old.');
        }
        if ($sent - $now > $toleranceSeconds) {
            throw self::refused('The webhook timestamp is too far in the future.');
        }
        $expected = hash_hmac('sha256', "$id.$timestamp.$payload", $key, true);
        foreach (explode(' ', $signatures) as $candidate) {
            [$version, $signature] = array_pad(explode(',', $candidate, 2), 2, '');
            if ($version !== 'v1') {
                continue;
            }
            $given = base64_decode($signature, true);
            if ($given !== false && hash_equals($expected, $given)) {
                return;
            }
        }
        throw self::refused('No matching webhook signature.');
    }

    /**
     * The typed `data.object` of an event: a Payment for `payment.*`, a Refund for `refund.*`, …
     * (EventTypes::OBJECT_MODELS); null for a type this SDK does not know yet.
     */
    public static function eventObject(Event $event): ?Model
    {
        $class = EventTypes::OBJECT_MODELS[$event->type] ?? null;
        if ($class === null) {
            return null;
        }
        try {
            return $class::fromArray($event->data->object);
        } catch (\UnexpectedValueException $e) {
            $name = basename(str_replace('\\', '/', $class));
            throw self::refused("The {$event->type} event's object is not a $name: " . $e->getMessage());
        }
    }

    /**
     * The `webhook-signature` value for a payload (`v1,<base64>`): to test your own webhook
     * handler with deliveries you sign yourself.
     */
    public static function sign(
        string $id,
        int $timestamp,
        string $payload,
        #[\SensitiveParameter] string $secret,
    ): string {
        if ($timestamp < 0) {
            throw new \InvalidArgumentException('Tributary: the timestamp is Unix seconds');
        }
        return 'v1,' . base64_encode(hash_hmac('sha256', "$id.$timestamp.$payload", self::secretKey($secret), true));
    }

    private static function secretKey(#[\SensitiveParameter] string $secret): string
    {
        $base64 = str_starts_with($secret, self::SECRET_PREFIX)
            ? substr($secret, strlen(self::SECRET_PREFIX))
            : $secret;
        $key = base64_decode($base64, true);
        if ($key === false || $key === '') {
            throw new \InvalidArgumentException('Tributary: the webhook secret must be a whsec_… secret');
        }
        return $key;
    }

    /** @param array<string, string|list<string>>|object $headers */
    private static function header(array|object $headers, string $name): ?string
    {
        if (is_object($headers)) {
            if (!method_exists($headers, 'getHeaderLine')) {
                throw new \InvalidArgumentException('Tributary: headers must be an array or a PSR-7 message');
            }
            $line = $headers->getHeaderLine($name);
            return is_string($line) && $line !== '' ? $line : null;
        }
        $server = 'HTTP_' . strtoupper(str_replace('-', '_', $name));
        foreach ($headers as $key => $value) {
            if (strcasecmp((string) $key, $name) === 0 || $key === $server) {
                $value = is_array($value) ? ($value[0] ?? null) : $value;
                return is_string($value) ? $value : null;
            }
        }
        return null;
    }

    private static function refused(string $message): WebhookVerificationException
    {
        return new WebhookVerificationException('webhook_verification_failed', $message);
    }
}
