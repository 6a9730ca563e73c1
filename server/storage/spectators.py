"""How many spectators watch each race: counted by each node, summed on read.

Each node keeps one hash of its own (:func:`keys.spectators_on`): race ->
how many spectators of that race it holds. With every write it vouches for
those counts until a time, its score in the sorted set of such nodes
(:data:`keys.SPECTATOR_NODES`), and the hash expires a while after that. A
node says its counts again well before its time runs out while it lives; one
that dies says nothing more, so its counts stop counting at its time, and its
hash goes on its own. A reader sums, per race, the counts of the nodes whose
time is still ahead of its own clock (nodes' clocks are taken to agree within
a fraction of the vouching period, as for racers' presence).

Both a write and a read cost a few commands whatever the number of races: one
hash per node, read with one ``HMGET`` of all the races a node asks about.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text

__all__ = ["SpectatorStore"]


def _count(raw: object) -> int:
    """A count read back: nothing for a race the node does not hold (or a value not a count)."""
    if raw is None:
        return 0
    try:
        return max(0, int(reply_text(raw)))
    except ValueError:
        return 0


@storage_edge
class SpectatorStore:
    """Typed operations on the Redis model of how many watch each race."""

    def __init__(self, client: RedisClient) -> None:
        self.redis = client

    async def say(self, node: str, counts: Mapping[str, int], until: float, keep: float) -> None:
        """``node`` holds ``counts[race]`` spectators of each race named (0: none any more),
        and vouches for all its counts until ``until``; its hash lives ``keep`` seconds
        after this write. One round trip."""
        held = [race for race, count in counts.items() if count > 0]
        gone = [race for race, count in counts.items() if count <= 0]
        key = keys.spectators_on(node)
        async with self.redis.pipeline(transaction=False) as pipe:
            if held:
                pipe.hset(key, mapping={race: counts[race] for race in held})
            if gone:
                pipe.hdel(key, *gone)
            pipe.pexpire(key, max(1, math.ceil(keep * 1000)))
            pipe.zadd(keys.SPECTATOR_NODES, {node: until})
            await pipe.execute()

    async def totals(self, races: Sequence[str], now: float) -> dict[str, int]:
        """Each race's spectators on every node still vouched for at ``now``. Forgets the
        nodes gone by then. Two round trips."""
        if not races:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(keys.SPECTATOR_NODES, "-inf", now)
            pipe.zrange(keys.SPECTATOR_NODES, 0, -1)
            _, listed = await pipe.execute()
        nodes = [reply_text(node) for node in listed]
        totals = dict.fromkeys(races, 0)
        if not nodes:
            return totals
        async with self.redis.pipeline(transaction=False) as pipe:
            for node in nodes:
                pipe.hmget(keys.spectators_on(node), list(races))
            per_node = await pipe.execute()
        for counts in per_node:
            for race, raw in zip(races, counts, strict=True):
                totals[race] += _count(raw)
        return totals
