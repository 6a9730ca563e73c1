"""CPU of one message through the node's connection layer, without sockets: µs per message.

Run: ``.venv/bin/python -m bench.connection_path [--messages N] [--repeat R]``

The race bench (:mod:`bench.race_load`) measures the whole server under
load, where other work on the machine blurs a difference of a few µs. This
one times, single-threaded, what the connection layer adds per message:

* ``decode``: :func:`protocol.codec.decode_client` of a ``move`` frame, the
  work no layout of the connection can avoid;
* ``core``: the same frame through :class:`server.net.core.ConnectionCore`
  (``receive``, then ``handled``): decoding, the rate bucket, hello first,
  the order of messages; ``core - decode`` is what the rules cost;
* ``parse``: a masked client frame through websockets' Sans-I/O
  :class:`~websockets.server.ServerProtocol` (``receive_data`` and
  ``events_received``), as :class:`server.net.websocket.PushConnection` reads;
* ``write``: a ``moved``-sized reply through ``send_binary`` and
  ``data_to_send``, as :meth:`~server.net.websocket.PushConnection.write` does;
* ``frame``: the same reply framed by hand (header and payload joined): a
  fast path is only worth its code if it beats ``write`` by more than noise;
* ``push``: the move frame through :class:`~server.net.websocket.PushConnection`'s
  ``data_received`` to its sink, on a transport that writes nowhere: the
  parse and what the connection adds to it (its bounds: the frame bucket,
  the unsent bytes); ``push - parse`` is that addition;
* ``send``: the reply through :meth:`~server.net.websocket.PushConnection.write`.

To compare two checkouts' connection layers, run this file with the other
checkout first on the path: ``PYTHONPATH=../before .venv/bin/python
bench/connection_path.py`` times ``../before``'s ``server`` package.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import inspect
import os
import statistics
import struct
import time
from collections.abc import Callable

from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.server import ServerProtocol

from protocol.codec import decode_client, encode
from protocol.messages import Hello, SubmitMove
from protocol.version import PROTOCOL_VERSION
from server.net.core import ConnectionCore, Handle
from server.net.websocket import PushConnection, WebSocketServer
from server.settings import Limits, Timeouts

STEPS = ("decode", "core", "parse", "write", "frame", "push", "send")

MOVE = encode(SubmitMove(id=12, race="r" * 16, seq=41, move="w>f3"))
REPLY = os.urandom(600)  # about a moved reply with its view and legal moves


_HEADERS = {
    "Host": "localhost",
    "Upgrade": "websocket",
    "Connection": "Upgrade",
    "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version": "13",
}
#: The opening handshake's request, as a client sends it.
UPGRADE = (
    "GET / HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in _HEADERS.items()) + "\r\n"
).encode()


def _open_protocol() -> ServerProtocol:
    """A server protocol past its opening handshake, its parser reading frames."""
    protocol = ServerProtocol(max_size=2**18)
    protocol.receive_data(UPGRADE)  # else the parser still waits for a request line
    (request,) = protocol.events_received()
    assert isinstance(request, Request)
    protocol.send_response(protocol.accept(request))
    protocol.data_to_send()
    return protocol


class _Nowhere(asyncio.Transport):
    """A transport that takes every write and sends nothing."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("127.0.0.1", 1) if name == "peername" else default

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def _open_push(loop: asyncio.AbstractEventLoop) -> PushConnection:
    """A push connection past its opening handshake, delivering to a sink that drops."""

    async def server() -> WebSocketServer:
        async def handler(_: PushConnection) -> None:
            pass

        # No frame rate to meet (where the checkout has one): a bench sends back to back.
        unbounded: dict[str, object] = {}
        if "bounds" in inspect.signature(WebSocketServer).parameters:
            bounds = importlib.import_module("server.net.websocket").Bounds
            unbounded["bounds"] = bounds(frame_rate=1e12, frame_burst=10**12)
        return WebSocketServer(
            handler, "127.0.0.1", 0, max_size=2**18, ping_interval=None, ping_timeout=None,
            close_timeout=1, **unbounded,  # type: ignore[arg-type]
        )  # fmt: skip

    connection = PushConnection(loop.run_until_complete(server()))
    connection.connection_made(_Nowhere())
    connection.data_received(UPGRADE)
    assert connection.open and connection.serving is not None
    connection.serving.cancel()  # no handler: the bench is the sink
    loop.run_until_complete(asyncio.gather(connection.serving, return_exceptions=True))
    connection.attach(lambda message: None)
    return connection


def _client_frame(payload: bytes) -> bytes:
    """``payload`` as one masked binary frame, the way a client sends it."""
    return Frame(Opcode.BINARY, payload).serialize(mask=True)


def _by_hand(payload: bytes) -> bytes:
    size = len(payload)
    if size < 126:
        return struct.pack("!BB", 0x82, size) + payload
    if size < 65536:
        return struct.pack("!BBH", 0x82, 126, size) + payload
    return struct.pack("!BBQ", 0x82, 127, size) + payload


def steps(messages: int) -> dict[str, Callable[[], None]]:
    """Each step as a function that runs it ``messages`` times."""
    core = ConnectionCore(limits=Limits(rate=1e12, burst=10**12), timeouts=Timeouts(), now=0.0)
    core.receive(encode(Hello(id=1, v=PROTOCOL_VERSION, name="Ann")), 0.0)
    core.player = "p1"
    core.handled(0.0)
    reader, writer = _open_protocol(), _open_protocol()
    wire = _client_frame(MOVE)
    loop = asyncio.new_event_loop()
    pushed, sent = _open_push(loop), _open_push(loop)

    def decode() -> None:
        for _ in range(messages):
            decode_client(MOVE)

    def through_core() -> None:
        now = time.monotonic()
        for _ in range(messages):
            (handle,) = core.receive(MOVE, now)
            assert type(handle) is Handle
            core.handled(now)

    def parse() -> None:
        for _ in range(messages):
            reader.receive_data(wire)
            (_frame,) = reader.events_received()  # one frame parsed, or it fails here

    def write() -> None:
        for _ in range(messages):
            writer.send_binary(REPLY)
            writer.data_to_send()

    def frame() -> None:
        for _ in range(messages):
            _by_hand(REPLY)

    def push() -> None:
        for _ in range(messages):
            pushed.data_received(wire)

    def send() -> None:
        for _ in range(messages):
            sent.write(REPLY)

    return {
        "decode": decode, "core": through_core, "parse": parse, "write": write, "frame": frame,
        "push": push, "send": send,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=20_000, help="per timing (20000)")
    parser.add_argument("--repeat", type=int, default=7, help="timings per step (7)")
    args = parser.parse_args()
    timed = steps(args.messages)
    # Rounds take every step in turn, so a burst of other work on the machine
    # hits them alike; the fastest timing is the one it disturbed least.
    samples: dict[str, list[float]] = {name: [] for name in STEPS}
    for _ in range(args.repeat):
        for name in STEPS:
            started = time.process_time()
            timed[name]()
            samples[name].append((time.process_time() - started) / args.messages * 1e6)
    print(f"µs per message, best of {args.repeat} rounds of {args.messages:,} messages:")
    for name in STEPS:
        best, median = min(samples[name]), statistics.median(samples[name])
        print(f"  {name:7} {best:6.2f}  (median {median:.2f})")


if __name__ == "__main__":
    main()
