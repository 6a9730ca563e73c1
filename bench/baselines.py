"""The two servers the race bench measures Ballroom against, each run as its own process.

* ``echo``: a bare websockets + msgpack server that unpacks each binary
  frame and packs it straight back. Nothing a real server could do per
  message is cheaper, so its round trips/s are the ceiling of this stack
  (asyncio, websockets, msgpack) on this machine.
* ``push``: the same echo through the node's own websocket layer
  (:class:`server.net.websocket.WebSocketServer`: websockets' Sans-I/O
  protocol, each message pushed to a callback and answered with a
  synchronous write). Against ``echo`` it measures what that layer saves
  over websockets' asyncio server.
* ``naive``: the same as ``echo``, plus exactly one Redis round trip per message (an
  EVALSHA of a one-line INCR script, awaited before the reply), with a
  redis.asyncio client configured like the server's own
  (:func:`server.storage.store.connect`'s retry and timeouts). It is the design the
  server's commit batching must beat: one awaited Redis call per move.

All use the server's websocket options (no compression, same frame cap,
same keepalive pings). Run: ``python -m bench.baselines echo --port 9001``
or ``python -m bench.baselines naive --port 9002 --redis redis://127.0.0.1:6379/0``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from typing import Any

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from server.net.websocket import Bounds, PushConnection, WebSocketServer
from server.settings import Limits, Timeouts

__all__ = ["main", "run_echo", "run_naive", "run_push"]

_INCR = "return redis.call('INCR', KEYS[1])"


def _serve_options() -> dict[str, Any]:
    limits, timeouts = Limits(), Timeouts()
    return {
        "compression": None,
        "max_size": 4 * limits.max_frame,
        "max_queue": 16,
        "ping_interval": timeouts.ping_interval,
        "ping_timeout": timeouts.ping_timeout,
    }


async def _until_signalled(host: str, port: int, kind: str) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"{kind} baseline listening on ws://{host}:{port}/", flush=True)
    await stop.wait()


async def run_echo(host: str, port: int) -> None:
    """Serve the echo baseline until SIGINT or SIGTERM."""

    async def echo(ws: ServerConnection) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                message = msgpack.unpackb(frame, raw=False)
                await ws.send(msgpack.packb(message, use_bin_type=True))

    async with serve(echo, host, port, **_serve_options()):
        await _until_signalled(host, port, "echo")


async def run_push(host: str, port: int) -> None:
    """Serve the echo through the node's websocket layer until SIGINT or SIGTERM."""

    async def echo(ws: PushConnection) -> None:
        def answer(frame: bytes | str) -> None:
            ws.write(msgpack.packb(msgpack.unpackb(frame, raw=False), use_bin_type=True))

        ws.attach(answer)
        await ws.lost()

    options = _serve_options()
    server = WebSocketServer(
        echo,
        host,
        port,
        max_size=options["max_size"],
        ping_interval=options["ping_interval"],
        ping_timeout=options["ping_timeout"],
        close_timeout=2,
        # The node's other bounds, but no frame rate: as the node's under the saturation
        # load, whose message rate (and so frame rate) is raised out of the way.
        bounds=Bounds(frame_rate=1e12, frame_burst=10**12),
    )
    async with server:
        await _until_signalled(host, port, "push")


async def run_naive(host: str, port: int, redis_url: str, max_connections: int) -> None:
    """Serve the one-Redis-call-per-message baseline until SIGINT or SIGTERM."""
    client = aioredis.Redis.from_url(
        redis_url,
        max_connections=max_connections,
        retry=Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=3),
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
        socket_connect_timeout=2,
        socket_timeout=5,
        health_check_interval=15,
    )
    sha = await client.script_load(_INCR)

    async def naive(ws: ServerConnection) -> None:
        key = f"bench:naive:{id(ws)}"
        with contextlib.suppress(ConnectionClosed):
            async for frame in ws:
                message = msgpack.unpackb(frame, raw=False)
                message["n"] = await client.evalsha(sha, 1, key)
                await ws.send(msgpack.packb(message, use_bin_type=True))

    try:
        async with serve(naive, host, port, **_serve_options()):
            await _until_signalled(host, port, "naive")
    finally:
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("kind", choices=["echo", "push", "naive"])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis", help="Redis URL (naive only)")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=256,
        help="naive: Redis pool size; above the client count, so no request ever "
        "meets redis-py's MaxConnectionsError (default 256)",
    )
    args = parser.parse_args()
    if args.kind == "echo":
        asyncio.run(run_echo(args.host, args.port))
    elif args.kind == "push":
        asyncio.run(run_push(args.host, args.port))
    else:
        if not args.redis:
            parser.error("naive needs --redis")
        asyncio.run(run_naive(args.host, args.port, args.redis, args.max_connections))


if __name__ == "__main__":
    main()
