"""Auto-pagination over the API's cursor lists (``limit``, ``starting_after``, ``next_cursor``,
``has_more``).

``list()`` of the synchronous client fetches the first page and returns a :class:`ListPage`: its
``data`` is that page, and iterating it yields every item of every page, fetching the next page by
its cursor only when the previous one is used up. The asynchronous client's ``list()`` returns an
:class:`AsyncListRequest`: ``await`` it for the first page, or ``async for`` over it for every item.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping
from typing import Any, Generic, TypeVar

from ._base_client import ResponseMeta, last_response
from .errors import APIError

__all__ = ["AsyncListPage", "AsyncListRequest", "ListPage"]

T = TypeVar("T")

#: Auto-pagination stops with an error rather than loop: every page must move the cursor forward.
MAX_PAGES = 100_000


def _next_cursor(raw: Mapping[str, Any]) -> str | None:
    if not raw.get("has_more"):
        return None
    cursor = raw.get("next_cursor")
    if isinstance(cursor, str):
        return cursor
    # Lists without next_cursor page by the last item's id.
    data = raw.get("data") or []
    last = data[-1] if data else None
    return last.get("id") if isinstance(last, Mapping) and isinstance(last.get("id"), str) else None


def _stuck(cursor: str) -> APIError:
    return APIError(f"The list did not advance past {cursor}.", code="invalid_response")


def _check_limit(limit: int) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError("Tributary: to_list needs a positive integer limit")


class _PageFields(Generic[T]):
    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        #: The items of this page only.
        self.data: list[T] = list(raw.get("data") or [])
        self.has_more: bool = bool(raw.get("has_more"))
        self.next_cursor: str | None = _next_cursor(raw)

    @property
    def last_response(self) -> ResponseMeta | None:
        return last_response(self.raw)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(items={len(self.data)}, has_more={self.has_more}, next_cursor={self.next_cursor!r})"


class ListPage(_PageFields[T]):
    """One page of a list; iterating it goes on through the following pages."""

    def __init__(self, raw: Mapping[str, Any], fetch: Callable[[str], ListPage[T]]) -> None:
        super().__init__(raw)
        self._fetch = fetch

    def next_page(self) -> ListPage[T] | None:
        """The following page, or None on the last one."""
        return None if self.next_cursor is None else self._fetch(self.next_cursor)

    def iter_pages(self) -> Iterator[ListPage[T]]:
        """This page and every following one."""
        page: ListPage[T] | None = self
        previous: str | None = None
        for _ in range(MAX_PAGES):
            if page is None:
                return
            yield page
            if page.next_cursor is not None and page.next_cursor == previous:
                raise _stuck(page.next_cursor)
            previous = page.next_cursor
            page = page.next_page()
        raise _stuck(previous or "")

    def __iter__(self) -> Iterator[T]:
        for page in self.iter_pages():
            yield from page.data

    def to_list(self, *, limit: int) -> list[T]:
        """Every item, up to ``limit`` (required, so a large account cannot fill memory by accident)."""
        _check_limit(limit)
        items: list[T] = []
        for item in self:
            items.append(item)
            if len(items) >= limit:
                break
        return items


class AsyncListPage(_PageFields[T]):
    """One page of a list; ``async for`` over it goes on through the following pages."""

    def __init__(self, raw: Mapping[str, Any], fetch: Callable[[str], Awaitable[AsyncListPage[T]]]) -> None:
        super().__init__(raw)
        self._fetch = fetch

    async def next_page(self) -> AsyncListPage[T] | None:
        return None if self.next_cursor is None else await self._fetch(self.next_cursor)

    async def iter_pages(self) -> AsyncIterator[AsyncListPage[T]]:
        page: AsyncListPage[T] | None = self
        previous: str | None = None
        for _ in range(MAX_PAGES):
            if page is None:
                return
            yield page
            if page.next_cursor is not None and page.next_cursor == previous:
                raise _stuck(page.next_cursor)
            previous = page.next_cursor
            page = await page.next_page()
        raise _stuck(previous or "")

    async def __aiter__(self) -> AsyncIterator[T]:
        async for page in self.iter_pages():
            for item in page.data:
                yield item

    async def to_list(self, *, limit: int) -> list[T]:
        _check_limit(limit)
        items: list[T] = []
        async for item in self:
            items.append(item)
            if len(items) >= limit:
                break
        return items


class AsyncListRequest(Generic[T]):
    """What the asynchronous ``list()`` returns: ``await`` it for the first page, or ``async for``
    over it for every item of every page. Nothing is fetched until one of them starts."""

    def __init__(self, fetch: Callable[[str | None], Awaitable[AsyncListPage[T]]]) -> None:
        self._fetch = fetch

    def __await__(self) -> Generator[Any, None, AsyncListPage[T]]:
        return self._fetch(None).__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        first = await self._fetch(None)
        async for item in first:
            yield item

    async def to_list(self, *, limit: int) -> list[T]:
        """Every item, up to ``limit``."""
        return await (await self._fetch(None)).to_list(limit=limit)
