"""One server process: websockets in front, Redis behind, nothing else shared.

A node accepts connections, hands each to a :class:`Connection`, and runs
two background jobs: the event hub's pub/sub reader, and the sweeper that
closes races whose clock ran out, keeps the grace clocks of this node's
tournament entrants from running and moves tournaments on. Any number of
nodes may share one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator

from redis.exceptions import RedisError
from websockets.asyncio.server import Server, ServerConnection, serve

from server.connection import CLOSE_TRY_AGAIN, Connection
from server.director import Director
from server.hub import Hub
from server.service import RaceService
from server.settings import Settings
from server.store import Store, connect

__all__ = ["Node", "running_node"]

log = logging.getLogger(__name__)


class Node:
    """The parts of one server process, wired together."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.name = settings.node
        self.store = store
        self.service = RaceService(store, settings)
        self.director = Director(store, self.service, settings)
        self.hub = Hub(store)
        self.connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self._sweeper: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.hub.start()
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep())

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.hub.close()

    async def handle(self, ws: ServerConnection) -> None:
        """The websockets handler: one call per connection."""
        address = str(ws.remote_address[0]) if ws.remote_address else "?"
        if self._per_address[address] >= self.settings.limits.connections_per_address:
            await ws.close(CLOSE_TRY_AGAIN, "too many connections from your address")
            return
        self._per_address[address] += 1
        conn = Connection(ws, self)
        self.connections.add(conn)
        try:
            await conn.run()
        finally:
            self.connections.discard(conn)
            self._per_address[address] -= 1
            if not self._per_address[address]:
                del self._per_address[address]

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.settings.timeouts.sweep)
            try:
                await self.service.sweep()
                await self.director.heartbeat(self._entrants_here())
                await self.director.tick()
            except (RedisError, OSError) as exc:
                log.warning("sweep failed: %s", exc)
            except Exception:
                log.exception("sweep failed")

    def _entrants_here(self) -> dict[str, set[str]]:
        """Tournament -> entrants connected to this node, following it."""
        here: dict[str, set[str]] = {}
        for conn in self.connections:
            for tournament, follower in conn.tournaments.items():
                if follower.entrant and conn.player is not None:
                    here.setdefault(tournament, set()).add(conn.player)
        return here

    def websocket_server(self) -> contextlib.AbstractAsyncContextManager[Server]:
        limits, timeouts = self.settings.limits, self.settings.timeouts
        return serve(
            self.handle,
            self.settings.host,
            self.settings.port,
            # msgpack frames are small and rarely compress: deflate would cost
            # CPU and memory per connection for nothing.
            compression=None,
            # Hard cap for the websocket layer; the codec refuses frames above
            # limits.max_frame with a typed error and keeps the connection.
            max_size=4 * limits.max_frame,
            max_queue=16,
            ping_interval=timeouts.ping_interval,
            ping_timeout=timeouts.ping_timeout,
            # A client that does not answer our close must not hold up a shutdown.
            close_timeout=2,
        )


@contextlib.asynccontextmanager
async def running_node(settings: Settings) -> AsyncIterator[Node]:
    """A started node serving on ``settings.host:port`` until the block exits."""
    assert settings.redis_url is not None
    store = await connect(settings.redis_url)
    node = Node(settings, store)
    await node.start()
    try:
        async with node.websocket_server():
            yield node
    finally:
        await node.stop()
        await store.close()
