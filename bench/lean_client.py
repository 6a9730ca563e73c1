"""A lean protocol client for the load generator: picows frames, msgpack maps, callbacks.

The websockets library's client costs about as much CPU per message as the
server, so a load generator built on it (``client.session``) saturates its
own core before the server's. This client uses picows (a Cython websocket
implementation) and keeps Python work per frame to one ``msgpack`` unpack,
the shared client core's sorting of replies from pushes
(:class:`protocol.client_core.ClientCore`, which also numbers requests and
writes the hello) and a future or a callback: no reader task, no queue, no
coroutine per frame.

Messages sent are real protocol messages built and encoded by
:mod:`protocol` (so each is validated on construction). Replies and pushed
messages come back as the decoded msgpack maps; ``strict=True`` also runs
each one through :func:`protocol.messages.server_from_wire` (the checks
``decode_server`` makes, about 5x the cost of the bare unpack), which the
smoke test uses so the bench notices a server that speaks the protocol wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import msgpack
from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

from protocol.client_core import ClientCore, Reply
from protocol.codec import SERVER_LIMITS, encode, unpack
from protocol.messages import ClientMessage, server_from_wire

__all__ = ["LIBRARY", "LeanClient", "RequestError", "connect"]

#: Named in the bench's output and docs/performance.md.
LIBRARY = "picows"

Wire = dict[str, Any]
M = TypeVar("M", bound=ClientMessage)


class RequestError(Exception):
    """The server answered a request with an ``error`` map."""

    def __init__(self, reply: Wire) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.code = str(reply.get("code"))


class LeanClient(WSListener):
    """One connection. Replies resolve futures by ``id``; pushes go to ``on_push``.

    ``on_push(message)`` is called synchronously from the frame callback for
    every message without an ``id`` (or with one nobody waits for), so it
    must be quick. ``expect(t, race)`` waits for one particular push instead.
    ``on_frame(data)``, once set, takes every whole binary message instead,
    undecoded: a client that only watches (thousands of them in a load
    process) then costs one call per frame, and no Python object but the bytes.
    """

    def __init__(self, *, strict: bool = False) -> None:
        super().__init__()
        self.transport: WSTransport | None = None
        self.strict = strict
        self.player = ""
        self.on_push: Callable[[Wire], None] | None = None
        self.on_frame: Callable[[bytes], None] | None = None
        self.pushes = 0
        self.core: ClientCore[Wire, asyncio.Future[Wire]] = ClientCore(
            _read_strictly if strict else _read, _id_of
        )
        self._expected: dict[tuple[str, str], asyncio.Future[Wire]] = {}
        self._parts: list[bytes] = []
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # -- picows callbacks --------------------------------------------------

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        kind = frame.msg_type
        if self.on_frame is not None and kind is WSMsgType.BINARY and frame.fin:
            self.on_frame(frame.get_payload_as_bytes())  # a watcher's usual frame
            return
        if kind is WSMsgType.BINARY or kind is WSMsgType.CONTINUATION:
            if not frame.fin:
                self._parts.append(frame.get_payload_as_bytes())
                return
            data = frame.get_payload_as_bytes()
            if self._parts:
                data = b"".join([*self._parts, data])
                self._parts.clear()
            if self.on_frame is not None:
                self.on_frame(data)
                return
            self._receive(data)
        elif kind is WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code(), frame.get_close_message())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        error = ConnectionError("connection closed")
        for future in [*self.core.lost(), *self._expected.values()]:
            if not future.done():
                future.set_exception(error)
        self._expected.clear()
        if not self.closed.done():
            self.closed.set_result(None)

    # -- receiving ---------------------------------------------------------

    def _receive(self, data: bytes) -> None:
        event = self.core.receive(data)
        message = event.message
        if type(event) is Reply:
            if not event.waiter.done():
                event.waiter.set_result(message)
            return
        self.pushes += 1
        race = message.get("race", "")
        if type(race) is dict:  # race_state and spectating carry the race info map
            race = race.get("id", "")
        waiter = self._expected.pop((message["t"], race), None)
        if waiter is not None and not waiter.done():
            waiter.set_result(message)
        if self.on_push is not None:
            self.on_push(message)

    def expect(self, t: str, race: str) -> asyncio.Future[Wire]:
        """A future for the next push of type ``t`` about ``race`` (arm it before asking)."""
        future: asyncio.Future[Wire] = asyncio.get_running_loop().create_future()
        self._expected[(t, race)] = future
        return future

    # -- sending -----------------------------------------------------------

    def send(self, message: ClientMessage) -> None:
        assert self.transport is not None
        self.transport.send(WSMsgType.BINARY, encode(message))

    def request(self, kind: type[M], **fields: Any) -> asyncio.Future[Wire]:
        """Send ``kind(id=<fresh>, **fields)``; the future gets the reply map.

        The reply may be an ``error`` map: see :meth:`call` for one that raises.
        """
        future: asyncio.Future[Wire] = asyncio.get_running_loop().create_future()
        self.send(kind(id=self.core.expect(future), **fields))
        return future

    async def hello(self, name: str) -> Wire:
        """Say hello as ``name``; the client learns its player id from the welcome."""
        future: asyncio.Future[Wire] = asyncio.get_running_loop().create_future()
        assert self.transport is not None
        self.transport.send(WSMsgType.BINARY, self.core.hello(name, None, future))
        welcome = await future
        if welcome["t"] == "error":
            raise RequestError(welcome)
        self.player = welcome["player"]
        return welcome

    async def call(self, kind: type[M], **fields: Any) -> Wire:
        """:meth:`request`, raising :class:`RequestError` on an ``error`` reply."""
        reply = await self.request(kind, **fields)
        if reply["t"] == "error":
            raise RequestError(reply)
        return reply

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_disconnected:
            self.transport.send_close()
            self.transport.disconnect()


async def connect(
    url: str,
    *,
    name: str | None = None,
    strict: bool = False,
    timeout: float = 30,
    headers: Mapping[str, str] | None = None,
    source: str | None = None,
) -> LeanClient:
    """A connected client; with ``name``, it has said hello and knows its player id.

    ``headers`` go on the handshake (a browser-like client's ``Origin``); ``source``:
    the local address to connect from (127.0.0.N: many "addresses" on one machine).
    """
    extra: dict[str, Any] = {} if source is None else {"local_addr": (source, 0)}
    _, client = await ws_connect(
        lambda: LeanClient(strict=strict),
        url,
        extra_headers=headers,
        websocket_handshake_timeout=timeout,
        max_frame_size=4 * 2**20,
        read_buffer_init_size=4096,
        enable_auto_pong=True,
        **extra,
    )
    assert isinstance(client, LeanClient)
    if name is not None:
        await asyncio.wait_for(client.hello(name), timeout)
    return client


def _read(frame: bytes | str) -> Wire:
    message: Wire = msgpack.unpackb(frame, raw=False)
    return message


def _read_strictly(frame: bytes | str) -> Wire:
    """The map in ``frame``, checked as :func:`protocol.codec.decode_server` checks it."""
    message = unpack(frame, SERVER_LIMITS)
    server_from_wire(message)  # raises on anything the protocol does not allow
    assert isinstance(message, dict)  # which is what server_from_wire checked first
    return message


def _id_of(message: Wire) -> int | None:
    request_id: int | None = message.get("id")
    return request_id
