<?php

declare(strict_types=1);

namespace Tributary\Http;

/**
 * The default transport, on ext-curl. It keeps one handle, so connections are reused between
 * calls (keep-alive), except that every request other than GET goes out on a fresh connection:
 * libcurl re-sends a request by itself when a reused connection turns out to be dead before any
 * answer byte, and for a POST that was received before the connection died that would be a second
 * payment request the SDK never decided to make. The client's own retries stay the only ones.
 */
final class CurlTransport implements HttpTransport
{
    /** A connection that cannot be made within this (or the request's deadline) counts as failed. */
    private const CONNECT_TIMEOUT_MS = 10_000;

    /** libcurl errors where no connection was made, so the request never left. */
    private const NOT_SENT_ERRORS = [CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT];

    private ?\CurlHandle $handle = null;

    /** @param array<int, mixed> $curlOptions Extra CURLOPT_* settings (a proxy, CA file…), applied to every request. */
    public function __construct(private readonly array $curlOptions = [])
    {
        if (!extension_loaded('curl')) {
            throw new \LogicException(
                'Tributary: CurlTransport needs ext-curl (Debian: apt-get install php-curl); or pass a Psr18Transport',
            );
        }
    }

    public function send(HttpRequest $request): HttpResponse
    {
        $handle = $this->handle ??= curl_init();
        curl_reset($handle);
        $headers = [];
        $headerLines = ['Expect:']; // no 100-continue round trip for bodies
        foreach ($request->headers as $name => $value) {
            $headerLines[] = "$name: $value";
        }
        $options = [
            CURLOPT_URL => $request->url,
            CURLOPT_CUSTOMREQUEST => $request->method,
            CURLOPT_HTTPHEADER => $headerLines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_PROTOCOLS => CURLPROTO_HTTP | CURLPROTO_HTTPS,
            CURLOPT_TIMEOUT_MS => $request->timeoutMs,
            CURLOPT_CONNECTTIMEOUT_MS => min($request->timeoutMs, self::CONNECT_TIMEOUT_MS),
            CURLOPT_NOSIGNAL => true, // millisecond timeouts without SIGALRM
            CURLOPT_FRESH_CONNECT => $request->method !== 'GET',
            CURLOPT_HEADERFUNCTION => static function (\CurlHandle $_, string $line) use (&$headers): int {
                if (preg_match('#^HTTP/\S+\s+\d{3}#', $line) === 1) {
                    $headers = []; // a new answer (after an interim 1xx): keep only its headers
                } elseif (str_contains($line, ':')) {
                    [$name, $value] = explode(':', $line, 2);
                    $name = strtolower(trim($name));
                    $value = trim($value);
                    $headers[$name] = isset($headers[$name]) ? $headers[$name] . ', ' . $value : $value;
                }
                return strlen($line);
            },
        ];
        if ($request->body !== null) {
            $options[CURLOPT_POSTFIELDS] = $request->body;
        }
        curl_setopt_array($handle, $this->curlOptions + $options);
        $body = curl_exec($handle);
        if ($body === false || !is_string($body)) {
            $errno = curl_errno($handle);
            $kind = match (true) {
                in_array($errno, self::NOT_SENT_ERRORS, true) => TransportException::NOT_SENT,
                $errno === CURLE_OPERATION_TIMEDOUT => TransportException::TIMEOUT,
                default => TransportException::LOST,
            };
            throw new TransportException($kind, 'curl error ' . $errno . ': ' . curl_error($handle));
        }
        return new HttpResponse((int) curl_getinfo($handle, CURLINFO_RESPONSE_CODE), $headers, $body);
    }
}
