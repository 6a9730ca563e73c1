"""The least a Python fan-out can cost per spectator: one frame written to N sockets.

Run: ``.venv/bin/python -m bench.write_floor [--sockets N] [--events E] [--size BYTES]``

A node hands a board to each of a race's spectators with one socket write
each (server/fanout/spread.py). This bench measures what that write costs
with nothing else around it: a uvloop server (the node's default event
loop) accepts ``--sockets`` loopback connections from a reader process,
then writes the same ``--size`` byte websocket frame to all of them in a
tight loop, ``--events`` times, a pause of a twentieth of a second between
two events so that the reader keeps up. It prints the server's user and
system CPU per write and how long one event takes to reach every socket.
Compare the node's CPU per delivered frame in ``bench.spectators``. The
difference between the two is the node's other work: its checks per
spectator, the system time of sockets that many clients read, and its
timers, pings and reads counted per frame (docs/deployment.md).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import selectors
import signal
import socket
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import uvloop

from bench.harness import raise_open_files
from server.arguments import whole
from server.net.websocket import framed

__all__ = ["Floor", "main", "measure"]

#: Seconds between two events: the reader drains the sockets meanwhile.
PAUSE = 0.05
#: Seconds the server waits for the reader's connections before giving up.
CONNECT_WITHIN = 60.0
#: Descriptors the process needs besides its sockets.
SPARE_FILES = 64


@dataclass(frozen=True, slots=True)
class Floor:
    """What one write of a frame cost the server, and one event to every socket."""

    user_us: float
    system_us: float
    event_ms_median: float
    event_ms_max: float


def _read_until_closed(port: int, sockets: int) -> None:
    """In the reader process: connect ``sockets`` times, then read everything until each
    socket is closed (the server closes them all, or they close with it if it dies)."""
    chooser = selectors.DefaultSelector()
    for _ in range(sockets):
        conn = socket.create_connection(("127.0.0.1", port))
        conn.setblocking(False)
        chooser.register(conn, selectors.EVENT_READ)
    while chooser.get_map():
        for key, _ in chooser.select():
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            if not sock.recv(65536):
                chooser.unregister(sock)
                sock.close()


async def measure(sockets: int, events: int, size: int) -> Floor:
    """Write one ``size``-byte frame to ``sockets`` connections, ``events`` times."""
    loop = asyncio.get_running_loop()
    transports: list[asyncio.WriteTransport] = []
    connected = asyncio.Event()

    class Accepted(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            # uvloop's transports write as asyncio's do, without deriving from them.
            transports.append(cast(asyncio.WriteTransport, transport))
            if len(transports) == sockets:
                connected.set()

    server = await loop.create_server(Accepted, "127.0.0.1", 0, backlog=sockets)
    port = server.sockets[0].getsockname()[1]
    reader = os.fork()
    if reader == 0:  # pragma: no cover - the child only reads, and is killed
        try:
            _read_until_closed(port, sockets)
        finally:
            os._exit(0)
    try:
        await asyncio.wait_for(connected.wait(), CONNECT_WITHIN)
        frame = framed(b"x" * size)
        before = resource.getrusage(resource.RUSAGE_SELF)
        took: list[float] = []
        for _ in range(events):
            started = time.perf_counter()
            for transport in transports:
                transport.write(frame)
            took.append(time.perf_counter() - started)
            await asyncio.sleep(PAUSE)
        after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        for transport in transports:
            transport.close()
        server.close()
        os.kill(reader, signal.SIGKILL)
        os.waitpid(reader, 0)
    writes = sockets * events
    return Floor(
        user_us=1e6 * (after.ru_utime - before.ru_utime) / writes,
        system_us=1e6 * (after.ru_stime - before.ru_stime) / writes,
        event_ms_median=1e3 * statistics.median(took),
        event_ms_max=1e3 * max(took),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.write_floor", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sockets", type=whole("sockets", 1), default=5000, help="N (5000)")
    parser.add_argument("--events", type=whole("events", 1), default=40, help="E (40)")
    parser.add_argument(
        "--size", type=whole("a frame's bytes", 1, 65535), default=300, help="payload (300)"
    )
    args = parser.parse_args(argv)
    needed = args.sockets + SPARE_FILES
    soft, _ = raise_open_files(needed)
    if soft != resource.RLIM_INFINITY and soft < needed:
        parser.error(f"{args.sockets} sockets need {needed} open files; the limit is {soft}")
    floor = uvloop.run(measure(args.sockets, args.events, args.size))
    print(
        f"{args.sockets} sockets, {args.events} events of {args.size} bytes: "
        f"{floor.user_us:.1f} µs user + {floor.system_us:.1f} µs system per write; "
        f"one event to every socket {floor.event_ms_median:.0f} ms (median), "
        f"{floor.event_ms_max:.0f} ms (slowest)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
