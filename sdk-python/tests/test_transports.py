"""The two standard-library transports against a loopback HTTP server (127.0.0.1 only): bodies with
a length, chunked or up to the close; and the three ways a try fails (refused, lost, timed out)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from support import HttpRequest

from tributary import (
    AsyncHTTPTransport,
    HTTPTransport,
    HttpResponse,
    Tributary,
    TransportError,
    last_response,
)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hits: dict[str, int] = {}

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass  # quiet tests

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("content-length", "0")))

    def _answer(self) -> None:
        received = self._body()
        self.hits[self.path] = self.hits.get(self.path, 0) + 1
        if self.path == "/drop" or (self.path.startswith("/payment/create") and self.hits[self.path] == 1):
            self.connection.shutdown(socket.SHUT_RDWR)  # the answer is lost
            return
        if self.path == "/slow":
            time.sleep(1.0)
        if self.path == "/chunked":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for part in (b'{"amount": 10.1,', b' "currency": "USD"}'):
                self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
            return
        if self.path == "/eof":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"until the end")
            self.close_connection = True
            return
        echo = {
            "method": self.command,
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": received.decode(),
            "id": "pay_1",
        }
        payload = json.dumps(echo).encode()
        self.send_response(201 if self.command == "POST" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Request-Id", "req_loop")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_DELETE = _answer


class LoopbackCase(unittest.TestCase):
    server: ThreadingHTTPServer
    base: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        cls.server.daemon_threads = True
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}"

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self) -> None:
        Handler.hits.clear()

    def request(
        self, path: str, method: str = "GET", body: bytes | None = None, timeout: float = 5.0
    ) -> HttpRequest:
        return HttpRequest(method, self.base + path, {"Accept": "application/json"}, body, timeout)

    @staticmethod
    def closed_port() -> int:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return int(s.getsockname()[1])


class Transports(LoopbackCase):
    def check_answers(self, send) -> None:  # noqa: ANN001 - either transport's send, made blocking
        echoed = send(self.request("/echo?x=1", "POST", b'{"a":1}'))
        self.assertIsInstance(echoed, HttpResponse)
        self.assertEqual(echoed.status, 201)
        self.assertEqual(echoed.headers["request-id"], "req_loop")
        seen = json.loads(echoed.body)
        self.assertEqual((seen["method"], seen["path"], seen["body"]), ("POST", "/echo?x=1", '{"a":1}'))
        self.assertEqual(seen["headers"]["host"], self.base.removeprefix("http://"))
        self.assertEqual(seen["headers"]["connection"], "close")
        self.assertEqual(send(self.request("/chunked")).body, b'{"amount": 10.1, "currency": "USD"}')
        self.assertEqual(send(self.request("/eof")).body, b"until the end")

    def check_failures(self, send) -> None:  # noqa: ANN001
        for request, kind in (
            (HttpRequest("GET", f"http://127.0.0.1:{self.closed_port()}/", {}, None, 5.0), "refused"),
            (self.request("/drop", "POST", b"{}"), "connection"),
            (self.request("/slow", timeout=0.2), "timeout"),
        ):
            with self.assertRaises(TransportError, msg=kind) as caught:
                send(request)
            self.assertEqual(caught.exception.kind, kind)

    def test_sync_transport(self) -> None:
        transport = HTTPTransport()
        self.check_answers(transport.send)
        self.check_failures(transport.send)

    def test_async_transport(self) -> None:
        transport = AsyncHTTPTransport()
        self.check_answers(lambda r: asyncio.run(transport.send(r)))
        self.check_failures(lambda r: asyncio.run(transport.send(r)))

    def test_header_values_with_line_breaks_are_refused(self) -> None:
        bad = HttpRequest("GET", self.base + "/echo", {"X-Test": "a\r\nInjected: 1"}, None, 5.0)
        with self.assertRaises(ValueError):
            HTTPTransport().send(bad)
        with self.assertRaises(ValueError):
            asyncio.run(AsyncHTTPTransport().send(bad))


class ClientOverLoopback(LoopbackCase):
    def test_a_create_whose_answer_is_lost_is_sent_again_with_its_key(self) -> None:
        client = Tributary("sk_test_loop", base_url=self.base, sleep=lambda _: None)
        payment = client.payments.create({"amount": 1, "currency": "IDR", "reference_no": "r"})
        meta = last_response(payment)
        assert meta is not None
        self.assertEqual((meta.attempts, Handler.hits["/payment/create"]), (2, 2))
        self.assertEqual(payment["headers"]["idempotency-key"], meta.idempotency_key)


if __name__ == "__main__":
    unittest.main()
