"""The connection pool of a node's client to one Redis.

A pool whose callers wait their turn, in order, when every connection is busy:
see :class:`FairConnectionPool`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

__all__ = ["FairConnectionPool"]


class FairConnectionPool(aioredis.ConnectionPool):
    """A connection pool whose callers queue, first come first served, when it is full.

    redis-py's default pool raises ``MaxConnectionsError`` as soon as more
    commands are in flight than it has connections (a burst of a hundred
    first moves did it), and its ``BlockingConnectionPool`` lets newcomers
    take a freed connection ahead of those already waiting, which wrecks the
    tail latency under load. A FIFO semaphore in front of the pool does
    neither: it waits, and in order.
    """

    def __init__(self, *, max_connections: int, **kwargs: Any) -> None:
        super().__init__(max_connections=max_connections, **kwargs)
        self._slots = asyncio.Semaphore(max_connections)
        self._holding: set[Any] = set()

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        await self._slots.acquire()
        try:
            connection = await super().get_connection()  # type: ignore[no-untyped-call]
        except BaseException:
            self._slots.release()
            raise
        self._holding.add(connection)
        return connection

    async def release(self, connection: Any) -> None:
        try:
            await super().release(connection)
        finally:
            if connection in self._holding:
                self._holding.discard(connection)
                self._slots.release()
