"""Rate counters in Redis: attempts in a fixed window, shared by every node.

A counter is one key that counts attempts and expires with its window,
which starts at its first attempt (``rate_hit.lua``: INCR, and PEXPIRE on
the first). Logins (per name, per address), entry-password guesses (per
tournament, per address) and new guest sessions (per address) are each
counted this way, so a limit holds across all the nodes of a deployment.
"""

from __future__ import annotations

from typing import NamedTuple

from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.store import Store

__all__ = ["RateCounters", "Window"]


class Window(NamedTuple):
    """A rate counter: attempts in the current window, and milliseconds until it ends."""

    attempts: int
    ms_left: int

    @property
    def seconds_left(self) -> int:
        """Whole seconds until the window ends, at least 1: what ``retry_after`` says."""
        return max(1, -(-self.ms_left // 1000))


@storage_edge
class RateCounters:
    """Count, read and forget attempts in fixed windows."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        self._rate_hit = store.scripts["rate_hit"]

    async def hit(self, key: str, window_ms: int) -> Window:
        """Count one attempt in ``key``'s window (which starts with the first)."""
        count, ms_left = await self._rate_hit(keys=[key], args=[window_ms])
        return Window(int(count), int(ms_left))

    async def peek(self, key: str) -> Window:
        """The attempts counted in ``key``'s window, without counting one."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(key)
            pipe.pttl(key)
            count, ms_left = await pipe.execute()
        return Window(int(count or 0), max(0, int(ms_left)))

    async def forget(self, key: str) -> None:
        await self.redis.delete(key)
