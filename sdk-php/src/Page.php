<?php

declare(strict_types=1);

namespace Tributary;

/**
 * One page of a cursor list (`{object: "list", data, has_more, next_cursor}`) that also iterates
 * every item of every page: `foreach` fetches the next page by its cursor (`starting_after`) only
 * when the previous one is used up.
 *
 * ```php
 * $page = $tributary->payments->list(['limit' => 20, 'status' => 'pending']);
 * $page->data;       // this page's payments
 * foreach ($tributary->payments->list(['status' => 'succeeded']) as $payment) { … } // all of them
 * ```
 *
 * @template T of Model
 * @implements \IteratorAggregate<int, T>
 */
final class Page implements \IteratorAggregate
{
    /** Iteration stops with an error rather than loop: a page must move the cursor forward. */
    public const MAX_PAGES = 100_000;

    /** The cursor this page was fetched with (to notice a list that does not advance). */
    private ?string $previousCursor = null;

    /**
     * @param list<T> $data
     * @param \Closure(string): Page<T> $fetchPage Fetches the page that starts after a cursor.
     */
    public function __construct(
        public readonly string $object,
        public readonly array $data,
        public readonly bool $has_more,
        public readonly ?string $next_cursor,
        private readonly \Closure $fetchPage,
        private readonly ?ResponseMeta $lastResponse = null,
    ) {
    }

    /** The HTTP answer this page came from. */
    public function lastResponse(): ?ResponseMeta
    {
        return $this->lastResponse;
    }

    /**
     * The cursor of the next page: `next_cursor`, or the last item's id on lists that page by id;
     * null on the last page.
     */
    public function nextCursor(): ?string
    {
        if (!$this->has_more) {
            return null;
        }
        if ($this->next_cursor !== null) {
            return $this->next_cursor;
        }
        $last = $this->data === [] ? null : $this->data[array_key_last($this->data)];
        $id = $last === null ? null : ($last->toArray()['id'] ?? null);
        return is_string($id) ? $id : null;
    }

    /** @return ?Page<T> The next page, or null on the last one. */
    public function nextPage(): ?self
    {
        $cursor = $this->nextCursor();
        return $cursor === null ? null : ($this->fetchPage)($cursor);
    }

    /** @return \Generator<int, T> Every item of this page and the ones after it. */
    public function getIterator(): \Generator
    {
        $page = $this;
        $index = 0;
        for ($pages = 1;; $pages += 1) {
            foreach ($page->data as $item) {
                yield $index++ => $item;
            }
            $cursor = $page->nextCursor();
            if ($cursor === null) {
                return;
            }
            if ($cursor === $page->previousCursor || $pages >= self::MAX_PAGES) {
                throw new \RuntimeException("Tributary: the list did not advance past $cursor");
            }
            $next = ($page->fetchPage)($cursor);
            $next->previousCursor = $cursor;
            $page = $next;
        }
    }

    /** @return \Generator<int, T> The same as iterating the page (the name stripe-php uses). */
    public function autoPagingIterator(): \Generator
    {
        return $this->getIterator();
    }

    /**
     * Every item up to `$limit` (required, so a large account cannot fill memory by accident).
     *
     * @return list<T>
     */
    public function toArray(int $limit): array
    {
        if ($limit < 1) {
            throw new \InvalidArgumentException('Tributary: toArray needs a positive limit');
        }
        $items = [];
        foreach ($this as $item) {
            $items[] = $item;
            if (count($items) >= $limit) {
                break;
            }
        }
        return $items;
    }
}
