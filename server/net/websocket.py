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
websocket handshake (None: go on with the handshake). A connection carries
one request: bytes after the request's head are the websocket's frames
once it is upgraded, and are dropped after a plain answer.

Every resource one connection can take from the node is bounded here
(:class:`Bounds`), whatever the client sends, and a connection past a
bound is closed, never waited for: the request head's bytes and the
handshakes pending per address; frames of any kind (control frames and a
message's continuation frames too) per second, from a token bucket; the
frames one message may come in; the bytes written and not yet sent,
counted after every read (the protocol's automatic pongs included, which
never pass the node's message path); and the CPU of one read, which is
parsed in slices so that a read full of tiny frames meets the frame
bucket after a slice, not after all of them. Why here rather than on
websockets' own asyncio connection: docs/reliability.md, *Hostile input*.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import logging
import os
import socket
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import cast

from websockets.frames import BINARY, CONT, PONG, TEXT, CloseCode, Frame
from websockets.http11 import SERVER, Request, Response
from websockets.protocol import CONNECTING, OPEN
from websockets.server import ServerProtocol

from server.net.core import TokenBucket

__all__ = [
    "Bounds",
    "Handler",
    "PushConnection",
    "RequestHook",
    "Sink",
    "WebSocketServer",
    "framed",
]

log = logging.getLogger(__name__)

#: Receives one whole message: ``bytes`` from a binary one, ``str`` from a text one.
Sink = Callable[[bytes | str], None]
#: Serves one connection once its handshake is done; the connection closes when it returns.
Handler = Callable[["PushConnection"], Awaitable[None]]
#: Answers a plain HTTP request itself (a Response), or lets the handshake go on (None).
RequestHook = Callable[[Request], Response | None]

_PING_BYTES = 4
#: Bytes of one read parsed at a time: a slice of the smallest frames (6
#: bytes) costs a few milliseconds at most before the frame bucket is
#: consulted again.
_SLICE = 1024
_END_OF_HEAD = b"\r\n\r\n"
#: Frames counted against the frame bucket at a time.
_COUNTED_BY = 8


@dataclass(frozen=True, slots=True, kw_only=True)
class Bounds:
    """What one connection may cost the node before it is closed (docs/protocol.md, *Limits*)."""

    frame_rate: float = 60.0  # frames of any kind a second, on average
    frame_burst: int = 220  # frames at once above that rate
    fragments: int = 16  # frames one message may come in
    unsent: int = 1024 * 1024  # bytes written and not yet sent, control frames included
    #: Bytes unsent past which the client reads behind: a spectator's boards are skipped
    #: until it has read them, then it gets a fresh snapshot (server/fanout/feeds.py).
    backlog: int = 16 * 1024
    #: The kernel's send buffer of a spectator's socket (Linux doubles it). Left alone, it
    #: grows to megabytes for a client that reads nothing, and the backlog would never fill.
    spectator_send_buffer: int = 16 * 1024
    head: int = 16 * 1024  # bytes of an HTTP request's head
    handshakes_per_address: int = 64  # connections of one address not yet upgraded or answered


def _address(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if peer else "?"


#: The answer to a connection over its address's pending handshakes, written before reading.
_TOO_MANY_BODY = b"Too many connections from your address.\n"
_TOO_MANY = (
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n"
    b"Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s"
) % (len(_TOO_MANY_BODY), _TOO_MANY_BODY)


#: websockets' own log of each connection: a line at INFO per connection opened (or plain
#: HTTP request answered) cost a busy node about 1 ms per joining spectator, and said
#: nothing the node's log lacks. Its warnings still show.
_protocol_log = logging.getLogger(f"{__name__}.protocol")
_protocol_log.setLevel(logging.WARNING)

#: The last message framed, and its frame: a fan-out writes one message to many connections
#: in a row. Holding the message keeps its identity from being reused by another.
_last_framed: tuple[bytes, bytes] = (b"", Frame(BINARY, b"").serialize(mask=False))


def framed(message: bytes) -> bytes:
    """``message`` as one unmasked binary frame (a server's), built once for a run of writes."""
    global _last_framed
    last, frame = _last_framed
    if message is not last:
        frame = Frame(BINARY, message).serialize(mask=False)
        _last_framed = (message, frame)
    return frame


class PushConnection(asyncio.Protocol):
    """One client's websocket; its messages are pushed to a callback as they are parsed.

    Messages parsed before :meth:`attach` (between the handshake and the
    handler's start) are kept and handed over by it.
    """

    __slots__ = (
        "_address",
        "_closing",
        "_corked",
        "_drained",
        "_early",
        "_eof",
        "_fragments",
        "_frames",
        "_head",
        "_held",
        "_lost",
        "_ping",
        "_sink",
        "_timer",
        "_uncounted",
        "latency",
        "loop",
        "protocol",
        "request",
        "server",
        "serving",
        "transport",
        "writing_paused",
    )

    def __init__(self, server: WebSocketServer) -> None:
        self.server = server
        self.loop = server.loop
        self.protocol = ServerProtocol(max_size=server.max_size, logger=_protocol_log)
        self.transport: asyncio.Transport
        self.request: Request | None = None
        #: Seconds from the last keepalive ping to its pong (0 before the first).
        self.latency = 0.0
        # Slotted, few and small: every idle connection carries them.
        self._lost = self.loop.create_future()
        self._sink: Sink | None = None
        self._early: list[bytes | str] | None = None  # before attach
        self._fragments: tuple[bool, list[bytes]] | None = None  # (text?, parts so far)
        bounds = server.bounds
        self._frames = TokenBucket(bounds.frame_rate, bounds.frame_burst, self.loop.time())
        self._uncounted = 0  # frames not yet taken from the bucket
        self._head: bytearray | None = None  # the request's head so far, until the handshake
        self._address: str | None = None  # counted among its address's pending handshakes
        self._eof = False  # the end of the stream is written: nothing more can be
        self._held = False
        # The one timer: the handshake's deadline, then the next keepalive ping
        # or the deadline of its pong, then the closing handshake's deadline.
        self._timer: asyncio.TimerHandle | None = None
        self._ping: tuple[bytes, float] | None = None  # the keepalive ping unanswered
        self._closing = False  # the closing handshake's deadline is armed
        #: The handler's task, once the handshake is done.
        self.serving: asyncio.Task[None] | None = None
        #: Whether the transport holds more unsent bytes than its high-water mark
        #: (``bounds.backlog``): the client reads more slowly than it is written to.
        self.writing_paused = False
        self._drained: list[Callable[[], None]] | None = None  # told once the client caught up
        self._corked: list[bytes] | None = None  # frames kept for one write (cork)

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

    def detach(self) -> None:
        """Send messages to nobody from now on (the handler is done with the connection)."""
        self._sink = None

    def write(self, message: bytes) -> None:
        """Send one binary message now, unless the connection is closing.

        The message is framed once for every connection it goes to in turn
        (:func:`framed`): a board pushed to a thousand spectators is one
        frame written a thousand times, not a thousand frames built.
        """
        protocol = self.protocol
        if protocol.state is not OPEN or self._eof:
            return
        if protocol.extensions:  # none is offered today; a compressed frame is per connection
            protocol.send_binary(message)
            self._flush()
            return
        if self._corked is not None:
            self._corked.append(framed(message))
            return
        self.transport.write(framed(message))

    def cork(self) -> None:
        """Keep the messages written from now on until :meth:`uncork`: a spectator handed
        several events at once gets their frames in one system call, not one each."""
        if self._corked is None:
            self._corked = []

    def uncork(self) -> bool:
        """Write what :meth:`cork` kept, in order, in one write; whether anything was.

        Nothing is written once the connection is closing (a frame after the close frame
        would break the protocol): what was kept is dropped, as a later write would be.
        """
        kept, self._corked = self._corked, None
        if not kept or self.protocol.state is not OPEN or self._eof:
            return False
        self.transport.write(kept[0] if len(kept) == 1 else b"".join(kept))
        return True

    def when_drained(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the client has read what was written (at once if it has)."""
        if not self.writing_paused:
            self.loop.call_soon(callback)
        elif self._drained is None:
            self._drained = [callback]
        else:
            self._drained.append(callback)

    def watching_only(self) -> None:
        """The client watches: its small pushes need no large kernel buffer, and a fixed one
        lets a client that stops reading fill the backlog soon (:attr:`writing_paused`)."""
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                size = self.server.bounds.spectator_send_buffer
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, size)

    def hold(self, held: bool) -> None:
        """Stop (True) or restart (False) reading from the socket: flow control for the sink."""
        if held is self._held or self._eof or self.transport.is_closing():
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
        server = self.server
        address = _address(transport)
        if server.pending[address] >= server.bounds.handshakes_per_address:
            # Refused before reading a byte: a slowloris holds no more than this.
            self.transport.write(_TOO_MANY)
            self.transport.close()
            return
        server.pending[address] += 1
        self._address = address
        # pause_writing past the backlog, resume_writing once a quarter of it is left.
        self.transport.set_write_buffer_limits(high=server.bounds.backlog)
        server.connections.add(self)
        self._timer = self.loop.call_later(server.open_timeout, self._abort)

    def pause_writing(self) -> None:
        self.writing_paused = True

    def resume_writing(self) -> None:
        self.writing_paused = False
        drained, self._drained = self._drained, None
        for callback in drained or ():
            callback()

    def data_received(self, data: bytes) -> None:
        if self.request is None:
            data = self._read_head(data)
        if len(data) <= _SLICE:
            self._receive(data)
            return
        view = memoryview(data)
        for start in range(0, len(data), _SLICE):
            if self._eof:
                return  # failed, or closed: whatever else came is not even parsed
            self._receive(view[start : start + _SLICE])

    def _receive(self, data: bytes | memoryview) -> None:
        """Parse ``data``; answer control frames, deliver messages."""
        if not data:
            return
        protocol = self.protocol
        protocol.receive_data(data)  # type: ignore[arg-type]  # a bytearray is extended by it
        events = protocol.events_received()
        wrote = self._flush()  # pongs, and the answer to a close frame
        for event in events:
            if type(event) is Frame:
                self.frame_received(event)
        # Replies to messages are counted where they are written (Connection.send_frame);
        # what the protocol answered by itself is counted here.
        if wrote and self.transport.get_write_buffer_size() > self.server.bounds.unsent:
            self._fail(CloseCode.POLICY_VIOLATION, "too slow: read your messages")
        elif protocol.close_expected():
            self._expect_close()

    def eof_received(self) -> None:
        self.protocol.receive_eof()
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        self._handshaken()
        self.protocol.receive_eof()  # the state is CLOSED from now on
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.server.connections.discard(self)
        self._lost.set_result(None)

    # -- frames ----------------------------------------------------------------

    def frame_received(self, frame: Frame) -> None:
        """One frame parsed by the protocol: data to the sink, pongs to the keepalive.

        Every frame, of any kind, takes a token from the connection's frame
        bucket (counted :data:`_COUNTED_BY` at a time, so that a move pays
        for no clock): past it the connection is failed (1008). Once the connection
        is closing (or failed, say on invalid UTF-8), frames the same read
        brought are dropped: nothing handles them now.
        """
        self._uncounted += 1
        if self._uncounted == _COUNTED_BY:  # the clock and the bucket, once every few frames
            self._uncounted = 0
            if not self._frames.take(self.loop.time(), _COUNTED_BY) and not self._eof:
                self._fail(CloseCode.POLICY_VIOLATION, "too many frames")
        if self._eof or self._closing:
            return
        opcode = frame.opcode
        if opcode is BINARY and frame.fin:
            self._deliver(bytes(frame.data))  # the usual case: one frame, one message
            return
        if opcode is BINARY or opcode is TEXT:
            self._fragments = (opcode is TEXT, [bytes(frame.data)])
        elif opcode is CONT and self._fragments is not None:
            parts = self._fragments[1]
            if len(parts) >= self.server.bounds.fragments:
                self._fail(CloseCode.MESSAGE_TOO_BIG, "a message in too many frames")
                return
            parts.append(bytes(frame.data))
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
                self._fail(CloseCode.INVALID_DATA, "invalid UTF-8 in a text message")
                return
        if self._sink is not None:
            self._sink(message)
        elif self._early is None:
            self._early = [message]
        else:
            self._early.append(message)

    def _flush(self) -> bool:
        """Write what the protocol has to send; an empty chunk is its end of the stream.
        Whether anything was.

        The chunks of one read (say a pong for each of a thousand pings) go
        in one write: the transport keeps each write as an object of its own.
        Nothing is written after the end of the stream.
        """
        chunks = self.protocol.data_to_send()
        if not chunks or self._eof:
            return False
        transport = self.transport
        if len(chunks) == 1 and chunks[0]:
            transport.write(chunks[0])  # the usual case: one message
            return True
        end = chunks.index(b"") if b"" in chunks else len(chunks)
        data = b"".join(chunks[:end])
        if data:
            transport.write(data)
        if end < len(chunks):
            self._eof = True
            if transport.can_write_eof():
                transport.write_eof()
            else:
                transport.close()
        return True

    def _fail(self, code: CloseCode, reason: str) -> None:
        """Close at once past a bound: the close frame and the end of the stream go out, and
        nothing more is read (a flood meets a full window, not a node that discards it); the
        TCP connection is aborted ``close_timeout`` later unless the client closed it first."""
        if self.protocol.state is OPEN:
            log.info("closing a connection (%d): %s", code, reason)
        self.protocol.fail(code, reason)
        self._flush()
        self._expect_close()
        if not self.transport.is_closing():
            self.transport.pause_reading()

    # -- the handshakes --------------------------------------------------------

    def _read_head(self, data: bytes) -> bytes:
        """Hand the protocol the request's head, and nothing after it, once it is whole.

        Returns the bytes that came after the head when the connection is
        now a websocket (its first frames); else nothing: the head is not
        whole yet, or the request was answered and the connection carries
        no other (one request per connection).
        """
        if self.protocol.state is not CONNECTING:
            return b""
        head, seen = (data, 0) if self._head is None else (self._head, len(self._head))
        if self._head is not None:
            head += data
        end = head.find(_END_OF_HEAD, max(0, seen - len(_END_OF_HEAD) + 1))
        if end < 0:
            if len(head) > self.server.bounds.head:
                self._refuse_head()
            elif self._head is None:
                self._head = bytearray(head)
            return b""
        self._head = None
        end += len(_END_OF_HEAD)
        if end > self.server.bounds.head:
            self._refuse_head()
            return b""
        protocol = self.protocol
        protocol.receive_data(bytes(head[:end]))
        events = protocol.events_received()
        self._flush()  # the protocol's own refusal of a request it could not read
        for event in events:
            if type(event) is Request:
                self._handshake(event)
        if protocol.state is not OPEN:
            self._handshaken()
            self.transport.close()
            return b""
        return bytes(head[end:])

    def _refuse_head(self) -> None:
        """A request head longer than ``bounds.head``: 431, and the connection closes."""
        self._head = None
        protocol = self.protocol
        protocol.send_response(
            protocol.reject(
                http.HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Request head too long.\n"
            )
        )
        self._flush()
        self._handshaken()
        self.transport.close()

    def _handshaken(self) -> None:
        """The connection no longer counts among its address's pending handshakes."""
        if self._address is not None:
            pending = self.server.pending
            pending[self._address] -= 1
            if pending[self._address] <= 0:
                del pending[self._address]
            self._address = None

    def _handshake(self, request: Request) -> None:
        self.request = request
        self._handshaken()
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
        self._fail(CloseCode.INTERNAL_ERROR, "keepalive ping timeout")


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
        bounds: Bounds | None = None,
    ) -> None:
        self.handler = handler
        self.host, self.port = host, port
        #: A socket already bound (``--workers`` share a port), listened on instead.
        self.sock = sock
        self.max_size = max_size
        self.ping_interval, self.ping_timeout = ping_interval, ping_timeout
        self.close_timeout, self.open_timeout = close_timeout, open_timeout
        #: Every per-connection bound but ``max_size`` (the bytes of one message).
        self.bounds = bounds or Bounds()
        #: Connections not yet upgraded (nor answered) per address.
        self.pending: Counter[str] = Counter()
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
