"""Auto-pagination over a fake list of seven items served three to a page, sync and async."""

from __future__ import annotations

import asyncio
import unittest
from urllib.parse import parse_qs, urlsplit

from support import (
    FakeAsyncTransport,
    FakeTransport,
    HttpRequest,
    HttpResponse,
    async_client,
    json_response,
    sync_client,
)

from tributary import APIError, AsyncListPage, ListPage

IDS = [f"pay_{i}" for i in range(7, 0, -1)]  # newest first


def serve(ids: list[str], with_cursor: bool = True):  # noqa: ANN201 - a transport answer
    """Answers a list request like the API: `limit`, `starting_after`, `has_more`, `next_cursor`."""

    def answer(request: HttpRequest) -> HttpResponse:
        query = {k: v[0] for k, v in parse_qs(urlsplit(request.url).query).items()}
        limit = int(query.get("limit", "10"))
        start = ids.index(query["starting_after"]) + 1 if "starting_after" in query else 0
        data = [{"id": i, "amount": 1, "currency": "IDR"} for i in ids[start : start + limit]]
        has_more = start + limit < len(ids)
        page = {"object": "list", "data": data, "has_more": has_more}
        if with_cursor:
            page["next_cursor"] = data[-1]["id"] if has_more else None
        return json_response(200, page)

    return answer


def cursors(transport: FakeTransport) -> list[str | None]:
    return [parse_qs(urlsplit(r.url).query).get("starting_after", [None])[0] for r in transport.requests]


class SyncPagination(unittest.TestCase):
    def test_the_first_page_and_then_every_item_of_every_page(self) -> None:
        transport = FakeTransport(*(serve(IDS) for _ in range(3)))
        client, _ = sync_client(transport)
        page = client.payments.list({"limit": 3, "status": "pending"})
        self.assertIsInstance(page, ListPage)
        self.assertEqual([p["id"] for p in page.data], IDS[:3])
        self.assertEqual((page.has_more, page.next_cursor), (True, "pay_5"))
        self.assertEqual(len(transport.requests), 1, "one page until more is asked for")
        self.assertEqual([p["id"] for p in page], IDS)
        self.assertEqual(cursors(transport), [None, "pay_5", "pay_2"], "the first page is not fetched again")
        self.assertIn("status=pending", transport.requests[2].url, "filters are kept on every page")

    def test_iter_pages_next_page_and_to_list(self) -> None:
        transport = FakeTransport(*(serve(IDS) for _ in range(5)))
        client, _ = sync_client(transport)
        page = client.payments.list({"limit": 3})
        self.assertEqual([len(p.data) for p in page.iter_pages()], [3, 3, 1])
        second = page.next_page()
        assert second is not None
        self.assertEqual(second.data[0]["id"], "pay_4")
        transport = FakeTransport(*(serve(IDS) for _ in range(3)))
        client, _ = sync_client(transport)
        self.assertEqual([p["id"] for p in client.payments.list({"limit": 3}).to_list(limit=5)], IDS[:5])
        self.assertEqual(len(transport.requests), 2, "no page beyond the limit")
        with self.assertRaises(ValueError):
            client.payments.list({"limit": 3}).to_list(limit=0)

    def test_a_given_starting_after_starts_there(self) -> None:
        transport = FakeTransport(*(serve(IDS) for _ in range(2)))
        client, _ = sync_client(transport)
        self.assertEqual(
            [p["id"] for p in client.payments.list({"limit": 2, "starting_after": "pay_5"})], IDS[3:]
        )
        self.assertEqual(cursors(transport), ["pay_5", "pay_3"])

    def test_lists_without_next_cursor_page_by_the_last_id(self) -> None:
        transport = FakeTransport(*(serve(IDS, with_cursor=False) for _ in range(3)))
        client, _ = sync_client(transport)
        self.assertEqual([e["id"] for e in client.events.list({"limit": 3})], IDS)

    def test_a_list_that_does_not_advance_is_an_error_not_a_loop(self) -> None:
        stuck = json_response(
            200, {"object": "list", "data": [{"id": "pay_1"}], "has_more": True, "next_cursor": "pay_1"}
        )
        client, _ = sync_client(FakeTransport(stuck, stuck, stuck))
        with self.assertRaises(APIError):
            list(client.payments.list())

    def test_money_in_list_items_is_decimal(self) -> None:
        client, _ = sync_client(FakeTransport(serve(IDS)))
        self.assertEqual(str(client.payments.list({"limit": 1}).data[0]["amount"]), "1.00")


class AsyncPagination(unittest.TestCase):
    def test_await_for_one_page_async_for_for_every_item(self) -> None:
        async def scenario() -> None:
            transport = FakeAsyncTransport(*(serve(IDS) for _ in range(5)))
            client, _ = async_client(transport)
            request = client.payments.list({"limit": 3})
            self.assertEqual(len(transport.requests), 0, "nothing is fetched until awaited or iterated")
            page = await request
            self.assertIsInstance(page, AsyncListPage)
            self.assertEqual([p["id"] for p in page.data], IDS[:3])
            self.assertEqual(len(transport.requests), 1)
            items = [p["id"] async for p in client.payments.list({"limit": 3})]
            self.assertEqual(items, IDS)
            self.assertEqual(cursors(transport), [None, None, "pay_5", "pay_2"])

        asyncio.run(scenario())

    def test_pages_and_to_list(self) -> None:
        async def scenario() -> None:
            transport = FakeAsyncTransport(*(serve(IDS) for _ in range(6)))
            client, _ = async_client(transport)
            page = await client.reconciliation.lines("rec_1", {"limit": 3})
            self.assertIn("/reconciliation/rec_1/lines?limit=3", transport.requests[0].url)
            self.assertEqual([len(p.data) async for p in page.iter_pages()], [3, 3, 1])
            self.assertEqual(len(await client.settlements.list({"limit": 3}).to_list(limit=4)), 4)

        asyncio.run(scenario())


if __name__ == "__main__":
    unittest.main()
