"""The daily deal in Redis: each day's seeds, its races, and its leaderboard (docs/players.md)."""

from __future__ import annotations

from typing import Any

from server.rules.winnable import WinnableChoice
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import (
    reply_text,
)
from server.storage.store import Store

__all__ = ["DailyStore"]

#: How long a day's seeds, races and board are kept: a month of history.
KEEP_SECONDS = 31 * 24 * 3600


def _choice_fields(variant: str) -> list[str]:
    return [f"seed:{variant}", f"draw:{variant}", f"pick:{variant}", f"line:{variant}"]


def _chosen(values: list[Any]) -> tuple[int, WinnableChoice | None] | None:
    """A day's (seed, choice) from its four fields' values; None before its seed was set."""
    seed, draw, pick, line = (None if v is None else reply_text(v) for v in values)
    if seed is None:
        return None
    if draw is None or pick is None:  # chosen before deals were (a plain secret seed)
        return int(seed), None
    moves = tuple(line.split(",")) if line else ()
    return int(seed), WinnableChoice(int(draw), int(pick), int(seed), moves)


@storage_edge
class DailyStore:
    """Typed operations on the daily deals."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis

    async def seed(self, day: str, variant: str, candidate: int) -> int:
        """The day's seed for ``variant``: ``candidate`` if none was drawn yet (once, any node)."""
        key = keys.daily(day)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hsetnx(key, f"seed:{variant}", str(candidate))
            pipe.hget(key, f"seed:{variant}")
            pipe.expire(key, KEEP_SECONDS)
            _, seed, _ = await pipe.execute()
        return int(seed)

    async def choose(
        self, day: str, variant: str, choice: WinnableChoice
    ) -> tuple[int, WinnableChoice | None]:
        """The day's seed for ``variant``, and the winnable choice it was dealt from: ``choice``
        if none was stored yet (once, any node: all four fields in one transaction). A
        day begun before deals were chosen so has a seed and no choice."""
        key = keys.daily(day)
        values = [choice.seed, choice.draw, choice.pick, ",".join(choice.line)]
        async with self.redis.pipeline(transaction=True) as pipe:
            for field, value in zip(_choice_fields(variant), values, strict=True):
                pipe.hsetnx(key, field, str(value))
            pipe.hmget(key, _choice_fields(variant))
            pipe.expire(key, KEEP_SECONDS)
            replies = await pipe.execute()
        chosen = _chosen(replies[-2])
        assert chosen is not None  # set just now, or before
        return chosen

    async def chosen(self, day: str, variant: str) -> tuple[int, WinnableChoice | None] | None:
        """The day's seed and winnable choice as :meth:`choose` stored them; None before."""
        return _chosen(await self.redis.hmget(keys.daily(day), _choice_fields(variant)))

    async def known_seed(self, day: str, variant: str) -> int | None:
        seed = await self.redis.hget(keys.daily(day), f"seed:{variant}")
        return None if seed is None else int(seed)

    async def add_race(self, day: str, variant: str, race: str) -> None:
        """A race of the day's deal, to announce the day after."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.sadd(keys.daily_races(day, variant), race)
            pipe.expire(keys.daily_races(day, variant), KEEP_SECONDS)
            pipe.zadd(keys.DAILY_PENDING, {f"{day}:{variant}": 0})
            await pipe.execute()

    async def score(self, day: str, variant: str, player: str, score: float) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(keys.daily_board(day, variant), {player: score})
            pipe.expire(keys.daily_board(day, variant), KEEP_SECONDS)
            await pipe.execute()

    async def board(self, day: str, variant: str, count: int = 100) -> list[tuple[str, float]]:
        rows: list[Any] = await self.redis.zrange(
            keys.daily_board(day, variant), 0, count - 1, withscores=True
        )
        return [(reply_text(player), float(score)) for player, score in rows]

    async def pending_days(self) -> list[tuple[str, str]]:
        """(day, variant) of every day whose races' results still wait."""
        found = await self.redis.zrange(keys.DAILY_PENDING, 0, -1)
        pending = []
        for item in found:
            day, variant = reply_text(item).split(":", 1)
            pending.append((day, variant))
        return pending

    async def races(self, day: str, variant: str) -> list[str]:
        return sorted(
            reply_text(race) for race in await self.redis.smembers(keys.daily_races(day, variant))
        )

    async def announced(self, day: str, variant: str) -> None:
        await self.redis.zrem(keys.DAILY_PENDING, f"{day}:{variant}")
