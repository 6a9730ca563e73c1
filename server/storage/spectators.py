"""How many spectators watch each race: counted by each node, summed on read.

Each node says, for every race it holds spectators of, how many it holds and
until when it vouches for that count: one field per node in the race's hash
(:func:`keys.race_spectators`), ``"count until"``. A node says it again well
before ``until`` while it holds them, and takes its field out once it holds
none. A node that dies says nothing more, so its count stops counting at its
``until``; the hash itself expires once no node has written it for a while,
so no race's count outlives its watchers. A reader sums the fields whose
``until`` is still ahead of its own clock (nodes' clocks are taken to agree
within a fraction of the vouching period, as for racers' presence).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text

__all__ = ["NodeCount", "SpectatorStore"]


@dataclass(frozen=True, slots=True)
class NodeCount:
    """One node's spectators of one race, vouched for until ``until`` (unix seconds)."""

    count: int
    until: float

    def text(self) -> str:
        """The field's value: ``"count until"``."""
        return f"{self.count} {self.until!r}"

    @classmethod
    def parse(cls, raw: object) -> NodeCount | None:
        """The value read back; None for one that is not a count (nothing counts it)."""
        try:
            count, until = reply_text(raw).split(" ")
            return cls(int(count), float(until))
        except (TypeError, ValueError, UnicodeDecodeError):
            return None

    def counts_at(self, now: float) -> int:
        """What it adds to the race's total at ``now``: nothing once its node stopped vouching."""
        return max(0, self.count) if self.until > now else 0


@storage_edge
class SpectatorStore:
    """Typed operations on the Redis model of how many watch each race."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client

    async def say(self, node: str, counts: Mapping[str, int], until: float, keep: float) -> None:
        """``node`` holds ``counts[race]`` spectators of each race, vouched for until ``until``;
        a count of 0 takes its field out. A race's hash lives ``keep`` seconds after its
        last write. One round trip, whatever the number of races."""
        if not counts:
            return
        keep_ms = max(1, math.ceil(keep * 1000))
        async with self.redis.pipeline(transaction=False) as pipe:
            for race, count in counts.items():
                key = keys.race_spectators(race)
                if count > 0:
                    pipe.hset(key, node, NodeCount(count, until).text())
                    pipe.pexpire(key, keep_ms)
                else:
                    pipe.hdel(key, node)
            await pipe.execute()

    async def totals(self, races: Sequence[str], now: float) -> dict[str, int]:
        """Each race's spectators on every node whose count is still vouched for at ``now``."""
        if not races:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for race in races:
                pipe.hgetall(keys.race_spectators(race))
            replies = await pipe.execute()
        totals: dict[str, int] = {}
        for race, fields in zip(races, replies, strict=True):
            counted = (NodeCount.parse(value) for value in fields.values())
            totals[race] = sum(c.counts_at(now) for c in counted if c is not None)
        return totals
