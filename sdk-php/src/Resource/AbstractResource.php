<?php

declare(strict_types=1);

namespace Tributary\Resource;

use Tributary\Exception\ApiException;
use Tributary\Generated\Operations;
use Tributary\Internal\ApiRequester;
use Tributary\Internal\ApiResult;
use Tributary\Model;
use Tributary\Page;
use Tributary\RequestOptions;

/**
 * The resources' common calls. Each method of a resource names an operation of the generated
 * table (src/Generated/Operations.php): paths, methods, Idempotency-Key use and every type come
 * from the OpenAPI document; only the names of the methods are chosen by hand, as in the Node SDK.
 */
abstract class AbstractResource
{
    /** @internal Resources are reached through TributaryClient. */
    public function __construct(private readonly ApiRequester $requester)
    {
    }

    /**
     * One object.
     *
     * @template T of Model
     * @param class-string<T> $class The operation's model (checked against the generated table).
     * @param array<string, string> $params
     * @param array<string, mixed> $query
     * @param ?array<string, mixed> $body
     * @param RequestOptions|array<string, mixed>|null $options
     * @return T
     */
    protected function object(
        string $class,
        string $operationId,
        array $params = [],
        array $query = [],
        ?array $body = null,
        RequestOptions|array|null $options = null,
    ): Model {
        self::expect($operationId, 'model', $class);
        $result = $this->requester->request($operationId, $params, $query, $body, RequestOptions::from($options));
        return self::build($class, $result)->withLastResponse($result->meta);
    }

    /**
     * A cursor list: its first page, which iterates every item of every page.
     *
     * @template T of Model
     * @param class-string<T> $itemClass
     * @param array<string, string> $params
     * @param array<string, mixed> $query
     * @param RequestOptions|array<string, mixed>|null $options
     * @return Page<T>
     */
    protected function page(
        string $itemClass,
        string $operationId,
        array $params,
        array $query,
        RequestOptions|array|null $options,
    ): Page {
        self::expect($operationId, 'listItem', $itemClass);
        $options = RequestOptions::from($options);
        $listClass = Operations::ALL[$operationId]['model'] ?? throw new \LogicException("$operationId has no model");
        $fetch = function (?string $cursor) use ($operationId, $params, $query, $options, $listClass, &$fetch): Page {
            $pageQuery = $cursor === null ? $query : ['starting_after' => $cursor] + $query;
            $result = $this->requester->request($operationId, $params, $pageQuery, null, $options);
            $list = self::build($listClass, $result); // checks the whole page, items included
            /** @var list<T> $items */
            $items = $list->data;
            $cursorField = $list->toArray()['next_cursor'] ?? null;
            return new Page(
                (string) $list->object,
                $items,
                (bool) $list->has_more,
                is_string($cursorField) ? $cursorField : null,
                $fetch,
                $result->meta,
            );
        };
        return $fetch(null);
    }

    /**
     * A text answer (CSV).
     *
     * @param array<string, string> $params
     * @param RequestOptions|array<string, mixed>|null $options
     */
    protected function text(string $operationId, array $params, RequestOptions|array|null $options): string
    {
        return $this->requester->request($operationId, $params, [], null, RequestOptions::from($options))->text;
    }

    /**
     * @template T of Model
     * @param class-string<T> $class
     * @return T
     */
    private static function build(string $class, ApiResult $result): Model
    {
        try {
            if (!is_array($result->json)) {
                throw new \UnexpectedValueException('the body is not a JSON object');
            }
            return $class::fromArray($result->json);
        } catch (\UnexpectedValueException $e) {
            throw new ApiException(
                'invalid_response',
                'Tributary answered with an unexpected ' . basename(str_replace('\\', '/', $class))
                    . ': ' . $e->getMessage(),
                $result->meta->statusCode,
                $result->meta->requestId,
                idempotencyKey: $result->meta->idempotencyKey,
                previous: $e,
            );
        }
    }

    /** The hand-written method and the generated table must agree on what an operation returns. */
    private static function expect(string $operationId, string $column, string $class): void
    {
        $declared = Operations::ALL[$operationId][$column] ?? null;
        if ($declared !== $class) {
            throw new \LogicException(
                "$operationId returns " . ($declared ?? 'nothing') . ", not $class: regenerate the SDK",
            );
        }
    }
}
