"""The node's websocket server, on its own: handshakes, plain HTTP, timeouts, shutdown.

:class:`server.net.websocket.WebSocketServer` drives websockets' Sans-I/O
protocol itself, so what websockets' asyncio server used to do for the node
(answer a request that is not a websocket handshake, drop a peer that never
finishes its handshake, close every connection on shutdown) is checked here,
on loopback, with an echo handler.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from websockets.asyncio.client import connect
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from server.net.websocket import PushConnection, RequestHook, WebSocketServer
from server.storage.embedded import free_port
from tests.server.conftest import TIMEOUT

GOING_AWAY = 1001


async def _echo(ws: PushConnection) -> None:
    ws.attach(lambda message: ws.write(message if isinstance(message, bytes) else b"text"))
    await ws.lost()


ServerFactory = Callable[..., Awaitable[WebSocketServer]]


@pytest.fixture
async def serve() -> AsyncIterator[ServerFactory]:
    """Start an echo server on a free loopback port (keyword options override the defaults)."""
    servers: list[WebSocketServer] = []

    async def start(
        *, process_request: RequestHook | None = None, open_timeout: float = 10.0
    ) -> WebSocketServer:
        server = WebSocketServer(
            _echo,
            "127.0.0.1",
            free_port(),
            max_size=2**16,
            ping_interval=None,
            ping_timeout=None,
            close_timeout=1,
            open_timeout=open_timeout,
            process_request=process_request,
        )
        await server.__aenter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.close()


async def _http_get(port: int, path: str = "/") -> bytes:
    """A plain HTTP GET (no upgrade): everything the server sends until it closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    async with asyncio.timeout(TIMEOUT):
        answer = await reader.read()
    writer.close()
    return answer


async def test_messages_echo_and_both_ends_see_the_close(serve: ServerFactory) -> None:
    server = await serve()
    async with connect(f"ws://127.0.0.1:{server.port}", compression=None) as ws:
        await ws.send(b"\x01\x02")
        assert await ws.recv() == b"\x01\x02"
        await ws.send("hi")
        assert await ws.recv() == b"text"
        (server_side,) = server.connections
        await ws.close()
    await asyncio.wait_for(server_side.wait_closed(), TIMEOUT)
    assert not server.connections


async def test_a_plain_http_request_is_refused_as_websockets_would(serve: ServerFactory) -> None:
    """Without a hook, a GET that asks for no websocket gets 426 Upgrade Required."""
    server = await serve()
    answer = await _http_get(server.port)
    assert answer.startswith(b"HTTP/1.1 426 Upgrade Required\r\n")
    assert b"\r\nServer: " in answer


async def test_the_request_hook_answers_plain_http(serve: ServerFactory) -> None:
    """The hook's response is sent instead of the handshake; None lets websockets through."""
    seen: list[str] = []

    def page(request: Request) -> Response | None:
        seen.append(request.path)
        if request.headers.get("Upgrade") is not None:
            return None
        body = b"<p>ballroom</p>"
        headers = Headers({"Content-Type": "text/html", "Content-Length": str(len(body))})
        return Response(200, "OK", headers, body)

    server = await serve(process_request=page)
    answer = await _http_get(server.port, "/index.html")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"<p>ballroom</p>")
    async with connect(f"ws://127.0.0.1:{server.port}/ws", compression=None) as ws:
        await ws.send(b"x")
        assert await ws.recv() == b"x"
    assert seen == ["/index.html", "/ws"]


async def test_a_failing_hook_is_a_500_and_the_server_goes_on(serve: ServerFactory) -> None:
    def broken(request: Request) -> Response | None:
        raise RuntimeError("bug")

    server = await serve(process_request=broken)
    assert (await _http_get(server.port)).startswith(b"HTTP/1.1 500 ")
    assert (await _http_get(server.port)).startswith(b"HTTP/1.1 500 ")


async def test_a_peer_that_never_finishes_its_handshake_is_dropped(serve: ServerFactory) -> None:
    server = await serve(open_timeout=0.2)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET / HTTP/1.1\r\n")  # and nothing more
    async with asyncio.timeout(TIMEOUT):
        assert await reader.read() == b""
    writer.close()


async def test_closing_the_server_closes_every_connection_going_away(
    serve: ServerFactory,
) -> None:
    server = await serve()
    async with connect(f"ws://127.0.0.1:{server.port}", compression=None) as ws:
        await ws.send(b"x")
        await ws.recv()
        await asyncio.wait_for(server.close(), TIMEOUT)
        with pytest.raises(ConnectionClosed) as closed:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == GOING_AWAY
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", server.port)
