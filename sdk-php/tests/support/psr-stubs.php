<?php

declare(strict_types=1);

/*
 * The PSR-7, PSR-17 and PSR-18 interfaces Psr18Transport uses, with the signatures of psr/http-message
 * 2.0, psr/http-factory 1.0 and psr/http-client 1.0, for the adapter's test only (Packagist is not
 * reachable here). Declared only when the real packages are not loaded.
 */

namespace Psr\Http\Message;

if (!interface_exists(MessageInterface::class)) {
    interface StreamInterface
    {
        public function __toString(): string;
    }

    interface MessageInterface
    {
        /** @return array<string, list<string>> */
        public function getHeaders(): array;

        public function getHeaderLine(string $name): string;

        public function withHeader(string $name, $value): MessageInterface;

        public function getBody(): StreamInterface;

        public function withBody(StreamInterface $body): MessageInterface;
    }

    interface RequestInterface extends MessageInterface
    {
        public function getMethod(): string;

        public function getUri();
    }

    interface ResponseInterface extends MessageInterface
    {
        public function getStatusCode(): int;
    }

    interface RequestFactoryInterface
    {
        public function createRequest(string $method, $uri): RequestInterface;
    }

    interface StreamFactoryInterface
    {
        public function createStream(string $content = ''): StreamInterface;
    }
}

namespace Psr\Http\Client;

use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;

if (!interface_exists(ClientInterface::class)) {
    interface ClientInterface
    {
        public function sendRequest(RequestInterface $request): ResponseInterface;
    }

    interface ClientExceptionInterface extends \Throwable
    {
    }

    interface NetworkExceptionInterface extends ClientExceptionInterface
    {
        public function getRequest(): RequestInterface;
    }
}
