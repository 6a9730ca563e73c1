"""The node's websocket server: websockets' Sans-I/O protocol driven from asyncio callbacks.

websockets' asyncio server queues every incoming message for ``recv()``,
which wakes the task reading the connection, once per message; a busy node
paid for that queue and that wake-up on every move. Here websockets' public
Sans-I/O :class:`~websockets.server.ServerProtocol` does what it is good at
(parsing the handshake and the frames, answering pings and close frames,
the frame size cap), and :class:`PushConnection`, a plain
:class:`asyncio.Protocol`, does the rest: a whole message goes straight to
the callback given to :meth:`PushConnection.attach`, from ``data_received``;
writes are synchronous (:meth:`PushConnection.write`); keepalive pings, the
opening and closing handshakes' timeouts are one timer per connection.

The callback runs in the event loop's protocol callback, so it must not
block; what it cannot do at once it hands to a task of its own, and it
pauses reading (:meth:`PushConnection.hold`) while such work piles up.

A plain HTTP request (a GET that asks for no websocket) is answered in one
place: the ``process_request`` hook given to :class:`WebSocketServer`, which
may return a :class:`~websockets.http11.Response` to send instead of the
websocket handshake (None: go on with the handshake).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import cast

from websockets.frames import BINARY, CONT, PONG, TEXT, CloseCode, Frame
from websockets.http11 import SERVER, Request, Response
from websockets.protocol import OPEN
from websockets.server import ServerProtocol

__all__ = ["Handler", "PushConnection", "RequestHook", "Sink", "WebSocketServer"]

log = logging.getLogger(__name__)

#: Receives one whole message: ``bytes`` from a binary one, ``str`` from a text one.
Sink = Callable[[bytes | str], None]
#: Serves one connection once its handshake is done; the connection closes when it returns.
Handler = Callable[["PushConnection"], Awaitable[None]]
#: Answers a plain HTTP request itself (a Response), or lets the handshake go on (None).
RequestHook = Callable[[Request], Response | None]

_PING_BYTES = 4


class PushConnection(asyncio.Protocol):
    """One client's websocket; its messages are pushed to a callback as they are parsed.

    Messages parsed before :meth:`attach` (between the handshake and the
    handler's start) are kept and handed over by it.
    """

    __slots__ = (
        "_closing",
        "_early",
        "_fragments",
        "_held",
        "_lost",
        "_ping",
        "_sink",
        "_timer",
        "latency",
        "loop",
        "protocol",
        "request",
        "server",
        "serving",
        "transport",
    )

    def __init__(self, server: WebSocketServer) -> None:
        self.server = server
        self.loop = server.loop
        self.protocol = ServerProtocol(max_size=server.max_size)
        self.transport: asyncio.Transport
        self.request: Request | None = None
        #: Seconds from the last keepalive ping to its pong (0 before the first).
        self.latency = 0.0
        # Slotted, few and small: every idle connection carries them.
        self._lost = self.loop.create_future()
        self._sink: Sink | None = None
        self._early: list[bytes | str] | None = None  # before attach
        self._fragments: tuple[bool, list[bytes]] | None = None  # (text?, parts so far)
        self._held = False
        # The one timer: the handshake's deadline, then the next keepalive ping
        # or the deadline of its pong, then the closing handshake's deadline.
        self._timer: asyncio.TimerHandle | None = None
        self._ping: tuple[bytes, float] | None = None  # the keepalive ping unanswered
        self._closing = False  # the closing handshake's deadline is armed
        #: The handler's task, once the handshake is done.
        self.serving: asyncio.Task[None] | None = None

    # -- for the handler ---------------------------------------------------

    @property
    def remote_address(self) -> tuple[str, int] | None:
        address: tuple[str, int] | None = self.transport.get_extra_info("peername")
        return address

    def attach(self, sink: Sink) -> None:
        """Send every message, from now and from before, to ``sink``."""
        self._sink = sink
        early, self._early = self._early or [], None
        for message in early:
            sink(message)

    def write(self, message: bytes) -> None:
        """Send one binary message now, unless the connection is closing."""
        protocol = self.protocol
        if protocol.state is not OPEN:
            return
        protocol.send_binary(message)
        self._flush()

    def hold(self, held: bool) -> None:
        """Stop (True) or restart (False) reading from the socket: flow control for the sink."""
        if held is self._held or self.transport.is_closing():
            return
        self._held = held
        if held:
            self.transport.pause_reading()
        else:
            self.transport.resume_reading()

    def lost(self) -> asyncio.Future[None]:
        """A future done once the TCP connection is gone; cancelling it cancels nothing else."""
        lost: asyncio.Future[None] = self.loop.create_future()

        def tell(_: object) -> None:
            if not lost.done():
                lost.set_result(None)

        self._lost.add_done_callback(tell)
        return lost

    @property
    def open(self) -> bool:
        """Whether messages can still be sent: the handshake done, no close begun."""
        return self.protocol.state is OPEN

    async def wait_closed(self) -> None:
        """Return once the TCP connection is gone."""
        await asyncio.wait([self._lost])

    async def close(self, code: int = CloseCode.NORMAL_CLOSURE, reason: str = "") -> None:
        """Start the closing handshake (unless started) and wait until the connection is gone."""
        if self.protocol.state is OPEN:
            self.protocol.send_close(code, reason)
            self._flush()
            self._expect_close()
        elif not self._lost.done() and self.request is None:
            self.transport.close()  # still in the opening handshake
        await self.wait_closed()

    # -- asyncio's callbacks -------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not always a subclass of asyncio.Transport
        # (uvloop's TCPTransport is not, with ``serve --loop uvloop``).
        self.transport = cast(asyncio.Transport, transport)
        self.server.connections.add(self)
        self._timer = self.loop.call_later(self.server.open_timeout, self._abort)

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        events = protocol.events_received()
        self._flush()  # pongs, and the answer to a close frame
        for event in events:
            if type(event) is Frame:
                self.frame_received(event)
            elif type(event) is Request:
                self._handshake(event)
        if protocol.close_expected():
            self._expect_close()

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self.protocol.receive_eof()  # the state is CLOSED from now on
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.server.connections.discard(self)
        self._lost.set_result(None)

    # -- frames ----------------------------------------------------------------

    def frame_received(self, frame: Frame) -> None:
        """One frame parsed by the protocol: data to the sink, pongs to the keepalive.

        Once the connection is closing (or failed, say on invalid UTF-8),
        frames the same read brought are dropped: nothing handles them now.
        """
        if self._closing:
            return
        opcode = frame.opcode
        if opcode is BINARY and frame.fin:
            self._deliver(bytes(frame.data))  # the usual case: one frame, one message
            return
        if opcode is BINARY or opcode is TEXT:
            self._fragments = (opcode is TEXT, [bytes(frame.data)])
        elif opcode is CONT and self._fragments is not None:
            self._fragments[1].append(bytes(frame.data))
        else:
            if opcode is PONG:
                self._ponged(bytes(frame.data))
            return  # pings and close frames: the protocol answered them
        if frame.fin:
            text, parts = self._fragments
            self._fragments = None
            self._deliver(b"".join(parts), text=text)

    def _deliver(self, data: bytes, *, text: bool = False) -> None:
        message: bytes | str = data
        if text:
            try:
                message = data.decode()
            except UnicodeDecodeError:
                self.protocol.fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text message")
                self._flush()
                self._expect_close()
                return
        if self._sink is not None:
            self._sink(message)
        elif self._early is None:
            self._early = [message]
        else:
            self._early.append(message)

    def _flush(self) -> None:
        """Write what the protocol has to send; an empty chunk is its end of the stream."""
        transport = self.transport
        for data in self.protocol.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
            else:
                transport.close()

    # -- the handshakes --------------------------------------------------------

    def _handshake(self, request: Request) -> None:
        self.request = request
        server, protocol = self.server, self.protocol
        response = None
        if server.process_request is not None:
            try:
                response = server.process_request(request)
            except Exception:
                log.exception("answering a plain HTTP request failed")
                response = protocol.reject(http.HTTPStatus.INTERNAL_SERVER_ERROR, "failed\n")
        if response is None:
            response = protocol.accept(request)
            if response.status_code == http.HTTPStatus.SWITCHING_PROTOCOLS and server.closing:
                response = protocol.reject(
                    http.HTTPStatus.SERVICE_UNAVAILABLE, "Server is shutting down.\n"
                )
        response.headers["Server"] = SERVER
        protocol.send_response(response)
        self._flush()
        self._cancel_timer()
        if protocol.state is not OPEN:
            self.transport.close()  # an HTTP answer, or a refused handshake
            return
        if server.ping_interval is not None:
            self._timer = self.loop.call_later(server.ping_interval, self._send_ping)
        self.serving = self.loop.create_task(self._serve())

    async def _serve(self) -> None:
        """Run the server's handler; the connection closes when it returns."""
        try:
            await self.server.handler(self)
        except Exception:
            log.exception("a connection's handler failed")
            await self.close(CloseCode.INTERNAL_ERROR)
        else:
            await self.close()

    def _expect_close(self) -> None:
        """The TCP connection should close soon: abort it if it has not after ``close_timeout``."""
        if not self._closing:
            self._closing = True
            self._cancel_timer()
            self._timer = self.loop.call_later(self.server.close_timeout, self._abort)

    def _abort(self) -> None:
        self._timer = None
        self.transport.abort()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- keepalive ---------------------------------------------------------------

    def _send_ping(self) -> None:
        data = os.urandom(_PING_BYTES)
        self._ping = (data, self.loop.time())
        self.protocol.send_ping(data)
        self._flush()
        timeout = self.server.ping_timeout
        self._timer = None if timeout is None else self.loop.call_later(timeout, self._no_pong)

    def _ponged(self, data: bytes) -> None:
        ping = self._ping
        if ping is None or ping[0] != data or self._closing:
            return  # unsolicited
        self._ping = None
        self.latency = self.loop.time() - ping[1]
        interval = self.server.ping_interval
        assert interval is not None
        self._cancel_timer()
        self._timer = self.loop.call_later(max(0.0, interval - self.latency), self._send_ping)

    def _no_pong(self) -> None:
        """A keepalive ping went unanswered for ``ping_timeout``: the peer is gone."""
        self._timer = None
        self.protocol.fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")
        self._flush()
        self._expect_close()


class WebSocketServer:
    """Listens on a port and serves each websocket with ``handler``; ``async with`` it.

    Leaving the block stops listening, closes every connection (going away)
    and waits, bounded by ``close_timeout``, for their handlers to end.
    """

    def __init__(
        self,
        handler: Handler,
        host: str,
        port: int,
        *,
        max_size: int,
        ping_interval: float | None,
        ping_timeout: float | None,
        close_timeout: float,
        open_timeout: float = 10.0,
        process_request: RequestHook | None = None,
        sock: socket.socket | None = None,
    ) -> None:
        self.handler = handler
        self.host, self.port = host, port
        #: A socket already bound (``--workers`` share a port), listened on instead.
        self.sock = sock
        self.max_size = max_size
        self.ping_interval, self.ping_timeout = ping_interval, ping_timeout
        self.close_timeout, self.open_timeout = close_timeout, open_timeout
        #: The one place a plain HTTP request is answered (see the module's docstring).
        self.process_request = process_request
        self.loop = asyncio.get_running_loop()
        self.connections: set[PushConnection] = set()
        self.closing = False
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> WebSocketServer:
        if self.sock is not None:
            self._server = await self.loop.create_server(
                lambda: PushConnection(self), sock=self.sock
            )
        else:
            self._server = await self.loop.create_server(
                lambda: PushConnection(self), self.host, self.port
            )
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        self.closing = True
        if self._server is not None:
            self._server.close()
        connections = list(self.connections)
        await asyncio.gather(*(c.close(CloseCode.GOING_AWAY) for c in connections))
        handlers = [c.serving for c in connections if c.serving is not None]
        if handlers:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.close_timeout):
                    await asyncio.wait(handlers)
        if self._server is not None:
            await self._server.wait_closed()
