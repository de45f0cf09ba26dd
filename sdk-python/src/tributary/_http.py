"""How requests reach the API: the transport interface and the two standard-library transports.

A transport sends one HTTP request and returns the whole answer, or raises :class:`TransportError`
saying whether the request may have reached the server. Retries, keys and errors are the client's
business (``_base_client.py``), so a transport stays small and replaceable: pass your own
(``transport=``) to add a proxy, connection pooling, instrumentation, or a fake in tests.

Both default transports open one connection per try and close it after the answer
(``Connection: close``): a retry never lands on a stale kept-alive socket, whose failure could not
be told apart from a lost answer.
"""

from __future__ import annotations

import asyncio
import http.client
import ssl
import time
from dataclasses import dataclass, field
from typing import Literal, Protocol
from urllib.parse import urlsplit

__all__ = [
    "AsyncHTTPTransport",
    "AsyncTransport",
    "HTTPTransport",
    "HttpRequest",
    "HttpResponse",
    "SyncTransport",
    "TransportError",
]

#: Bounds what the SDK reads from one answer; the API's largest pages are far below it.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
_MAX_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    #: Header names as sent; values must not contain CR or LF.
    headers: dict[str, str]
    body: bytes | None
    #: Deadline of the whole try, in seconds: connect, send and read the full answer.
    timeout: float


@dataclass(frozen=True)
class HttpResponse:
    status: int
    #: Lower-case names.
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class TransportError(Exception):
    """No answer. ``kind`` tells what a retry could repeat:

    - ``refused``: the connection was refused, nothing was sent;
    - ``timeout``: no full answer within the deadline, the request may have been processed;
    - ``connection``: the connection failed or was lost, the request may have been processed.
    """

    def __init__(self, kind: Literal["refused", "timeout", "connection"], message: str) -> None:
        super().__init__(message)
        self.kind: Literal["refused", "timeout", "connection"] = kind


class SyncTransport(Protocol):
    def send(self, request: HttpRequest) -> HttpResponse:
        ...


class AsyncTransport(Protocol):
    async def send(self, request: HttpRequest) -> HttpResponse:
        ...


def _check_headers(headers: dict[str, str]) -> None:
    for name, value in headers.items():
        if any(c in name or c in value for c in "\r\n\0"):
            # Never echo the value: it may be the API key.
            raise ValueError(f"Tributary: the {name!r} header contains a line break")


@dataclass(frozen=True)
class _Target:
    https: bool
    host: str
    port: int
    #: Path and query, as the request line carries them.
    path: str

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.https else 80
        return host if self.port == default else f"{host}:{self.port}"


def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"Tributary: unsupported URL {url!r} (http or https)")
    https = parts.scheme == "https"
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return _Target(https, parts.hostname, parts.port or (443 if https else 80), path)


class HTTPTransport:
    """The default synchronous transport, on ``http.client`` (https with certificate checks)."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self._ssl_context = ssl_context

    def send(self, request: HttpRequest) -> HttpResponse:
        _check_headers(request.headers)
        target = _target(request.url)
        deadline = time.monotonic() + request.timeout
        conn: http.client.HTTPConnection
        if target.https:
            context = self._ssl_context or ssl.create_default_context()
            conn = http.client.HTTPSConnection(
                target.host, target.port, timeout=request.timeout, context=context
            )
        else:
            conn = http.client.HTTPConnection(target.host, target.port, timeout=request.timeout)
        try:
            try:
                conn.connect()
            except ConnectionRefusedError as e:
                raise TransportError("refused", f"connection refused by {target.host_header}") from e
            except TimeoutError as e:
                raise TransportError("timeout", f"no connection to {target.host_header} in time") from e
            except ssl.SSLError as e:
                raise TransportError("connection", f"TLS with {target.host_header} failed: {e}") from e
            except OSError as e:
                # Nothing was sent: the connection was never made (unknown host, unreachable network).
                raise TransportError("refused", f"could not connect to {target.host_header}: {e}") from e
            try:
                conn.putrequest(request.method, target.path, skip_host=True, skip_accept_encoding=True)
                conn.putheader("Host", target.host_header)
                for name, value in request.headers.items():
                    conn.putheader(name, value)
                conn.putheader("Connection", "close")
                if request.body is not None:
                    conn.putheader("Content-Length", str(len(request.body)))
                conn.endheaders(request.body)
                _remaining(conn, deadline)
                response = conn.getresponse()
                chunks: list[bytes] = []
                size = 0
                while True:
                    _remaining(conn, deadline)
                    chunk = response.read1(65536)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > MAX_RESPONSE_BYTES:
                        raise TransportError("connection", "the answer is larger than the SDK reads")
                    chunks.append(chunk)
                headers = {k.lower(): v for k, v in response.getheaders()}
                return HttpResponse(response.status, headers, b"".join(chunks))
            except TimeoutError as e:
                raise TransportError("timeout", f"no full answer within {request.timeout} s") from e
            except (OSError, http.client.HTTPException) as e:
                raise TransportError("connection", f"the connection was lost: {type(e).__name__}") from e
        finally:
            conn.close()


def _remaining(conn: http.client.HTTPConnection, deadline: float) -> None:
    """Gives the socket what is left of the try's deadline, so a slow trickle cannot outlast it."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    if conn.sock is not None:
        conn.sock.settimeout(left)


class AsyncHTTPTransport:
    """The default asynchronous transport: HTTP/1.1 on ``asyncio`` streams (``ssl`` for https)."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self._ssl_context = ssl_context

    async def send(self, request: HttpRequest) -> HttpResponse:
        _check_headers(request.headers)
        target = _target(request.url)
        try:
            return await asyncio.wait_for(self._exchange(request, target), request.timeout)
        except TimeoutError as e:
            raise TransportError("timeout", f"no full answer within {request.timeout} s") from e

    async def _exchange(self, request: HttpRequest, target: _Target) -> HttpResponse:
        context = (self._ssl_context or ssl.create_default_context()) if target.https else None
        try:
            reader, writer = await asyncio.open_connection(
                target.host,
                target.port,
                ssl=context,
                server_hostname=target.host if context is not None else None,
                limit=_MAX_HEAD_BYTES,
            )
        except ConnectionRefusedError as e:
            raise TransportError("refused", f"connection refused by {target.host_header}") from e
        except ssl.SSLError as e:
            raise TransportError("connection", f"TLS with {target.host_header} failed: {e}") from e
        except OSError as e:
            # Nothing was sent: the connection was never made (unknown host, unreachable network).
            raise TransportError("refused", f"could not connect to {target.host_header}: {e}") from e
        try:
            writer.write(_request_bytes(request, target))
            await writer.drain()
            return await _read_response(reader, request.method)
        except (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            raise TransportError("connection", f"the connection was lost: {type(e).__name__}") from e
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except (OSError, ssl.SSLError):
                pass  # closing a connection the peer already dropped


def _request_bytes(request: HttpRequest, target: _Target) -> bytes:
    lines = [f"{request.method} {target.path} HTTP/1.1", f"Host: {target.host_header}"]
    lines += [f"{name}: {value}" for name, value in request.headers.items()]
    lines.append("Connection: close")
    if request.body is not None:
        lines.append(f"Content-Length: {len(request.body)}")
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    return head + (request.body or b"")


async def _read_response(reader: asyncio.StreamReader, method: str) -> HttpResponse:
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        status, headers = _parse_head(head)
        if status >= 200 or status == 101:
            break  # 1xx interim answers (100 Continue) are skipped
    if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
        return HttpResponse(status, headers, b"")
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        length = int(headers["content-length"])
        if length < 0 or length > MAX_RESPONSE_BYTES:
            raise ValueError("bad Content-Length")
        body = await reader.readexactly(length)
    else:
        body = await _read_to_end(reader)
    return HttpResponse(status, headers, body)


async def _read_to_end(reader: asyncio.StreamReader) -> bytes:
    # An answer without a length ends when the server closes the connection.
    chunks: list[bytes] = []
    size = 0
    while chunk := await reader.read(65536):
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise ValueError("the answer is larger than the SDK reads")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_head(head: bytes) -> tuple[int, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    if not version.startswith("HTTP/1."):
        raise ValueError("not an HTTP/1.x answer")
    status = int(rest.partition(" ")[0])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line == "":
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError("malformed header line")
        key = name.strip().lower()
        value = value.strip()
        # Repeated headers are joined as RFC 9110 allows for list-valued fields.
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return status, headers


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        line = await reader.readuntil(b"\r\n")
        length = int(line.split(b";", 1)[0].strip(), 16)
        if length == 0:
            # Trailers (rarely sent) end with an empty line.
            while (await reader.readuntil(b"\r\n")) != b"\r\n":
                pass
            return b"".join(chunks)
        size += length
        if size > MAX_RESPONSE_BYTES:
            raise ValueError("the answer is larger than the SDK reads")
        chunks.append(await reader.readexactly(length))
        if await reader.readexactly(2) != b"\r\n":
            raise ValueError("malformed chunk")
