"""The lobby's lists of races, kept in Redis: open races, live races, who hosts which.

Two sorted sets list races across the whole server: :data:`keys.OPEN_RACES`
(by creation, the races one may join) and :data:`keys.LIVE_RACES` (by the end
of their clock, the races one may watch). The race store adds and removes
races as they change phase; a counter, :data:`keys.LOBBY_VERSION`, goes up on
every change, so a node pushes the list again only when it changed.
"""

from __future__ import annotations

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text

__all__ = ["LobbyStore"]


@storage_edge
class LobbyStore:
    """Typed operations on the Redis model of the lobby's lists."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client

    async def changed(self) -> None:
        """Say that the list of races changed (a race opened, filled, started or ended)."""
        await self.redis.incr(keys.LOBBY_VERSION)

    async def version(self) -> int:
        """The lobby's version: it goes up each time the list of races changes."""
        return int(await self.redis.get(keys.LOBBY_VERSION) or 0)

    async def open_races(self, limit: int = 50) -> list[str]:
        """Races that can be joined, oldest first."""
        return [reply_text(r) for r in await self.redis.zrange(keys.OPEN_RACES, 0, limit - 1)]

    async def live_races(self, limit: int = 50) -> list[str]:
        """Started races not yet finished, the soonest to end first: the ones to watch."""
        return [reply_text(r) for r in await self.redis.zrange(keys.LIVE_RACES, 0, limit - 1)]

    async def live_races_due(self, now: float, limit: int = 100) -> list[str]:
        """Started races whose clock has run out by ``now``."""
        due = await self.redis.zrangebyscore(keys.LIVE_RACES, "-inf", now, start=0, num=limit)
        return [reply_text(r) for r in due]

    async def open_races_hosted_by(self, player: str) -> int:
        """How many races ``player`` created that are still open; forgets the others."""
        key = keys.hosted_races(player)
        races = [reply_text(r) for r in await self.redis.smembers(key)]
        if not races:
            return 0
        async with self.redis.pipeline(transaction=False) as pipe:
            for race in races:
                pipe.hget(keys.race_meta(race), "status")
            statuses = await pipe.execute()
        closed = [race for race, status in zip(races, statuses, strict=True) if status != b"open"]
        if closed:
            await self.redis.srem(key, *closed)
        return len(races) - len(closed)
