"""Quick-race queues kept in Redis: one per variant and race size (docs/players.md).

Every change to a queue is one command or one script on the queue's own
cluster slot (its keys share a hash tag): pairing (``lua/mm_pair.lua``)
takes a group out of the queue and marks each player matched in the same
step, so two nodes pairing at once can never both take a player. A
player's claim on being in some queue (``mm:player:P``) is a separate key
with a short TTL, so a player waits in at most one queue, and the claim
of a player whose node died runs out by itself.
"""

from __future__ import annotations

from typing import NamedTuple

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.replies import (
    reply_text,
    script_source,
)
from server.storage.store import Store

__all__ = ["Group", "QueueStore", "RematchStore", "RematchVote", "Ticket"]


class Group(NamedTuple):
    """Players the queue paired, and the race id they were given."""

    race: str
    racers: dict[str, str]  # player -> display name


class Ticket(NamedTuple):
    """A player's match, written by the pairing and read by the player's node."""

    race: str
    at: float


class QueueStore:
    """Typed operations on the quick-race queues."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        self._pair = self.redis.register_script(script_source("mm_pair"))
        self._requeue = self.redis.register_script(script_source("mm_requeue"))
        self._leave = self.redis.register_script(script_source("mm_leave"))

    async def join(
        self, queue: str, player: str, name: str, rating: int, *, now: float, claim_ttl: float
    ) -> bool:
        """Queue a player; False if they wait in a queue already (from any connection)."""
        claimed = await self.redis.set(
            keys.queue_claim(player), queue, nx=True, px=int(claim_ttl * 1000)
        )
        if not claimed:
            return False
        line, joined, seen, _ = keys.queue_keys(queue)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(line, {player: rating})
            pipe.hset(joined, player, f"{now!r}|{name}")
            pipe.hset(seen, player, repr(now))
            await pipe.execute()
        return True

    async def leave(self, queue: str, player: str) -> bool:
        """Out of the queue; False if the pairing matched them first (their race stands)."""
        left = bool(await self._leave(keys=list(keys.queue_keys(queue)), args=[player]))
        if left:
            await self.release(player)
        return left

    async def release(self, player: str) -> None:
        """The player waits in no queue any more."""
        await self.redis.delete(keys.queue_claim(player))

    async def vouch(self, queues: dict[str, list[str]], *, now: float, claim_ttl: float) -> None:
        """Say that these players are still connected to this node and waiting."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for queue, players in queues.items():
                seen = keys.queue_keys(queue)[2]
                pipe.hset(seen, mapping=dict.fromkeys(players, repr(now)))
                for player in players:
                    pipe.pexpire(keys.queue_claim(player), int(claim_ttl * 1000))
            await pipe.execute()

    async def pair(
        self,
        queue: str,
        *,
        now: float,
        size: int,
        base_gap: float,
        widen: float,
        stale: float,
        prefix: str,
        forget_matches: float = 60.0,
    ) -> list[Group]:
        """Take every group the queue can make now out of it; races are named ``prefix`` and
        a number (the prefix must be fresh: random, say). Matches older than
        ``forget_matches`` seconds, which no node passed on, are dropped."""
        reply = await self._pair(
            keys=list(keys.queue_keys(queue)),
            args=[repr(now), size, base_gap, widen, stale, prefix, forget_matches],
        )
        groups = []
        for group in reply:
            texts = [reply_text(value) for value in group]
            racers = dict(zip(texts[1::2], texts[2::2], strict=True))
            groups.append(Group(texts[0], racers))
        return groups

    async def tickets(self, queue: str, players: list[str]) -> dict[str, Ticket]:
        """The matches of these players that their node has not yet passed on."""
        values = await self.redis.hmget(keys.queue_keys(queue)[3], players)
        found = {}
        for player, value in zip(players, values, strict=True):
            if value is not None:
                race, at = reply_text(value).split("|", 1)
                found[player] = Ticket(race, float(at))
        return found

    async def drop_ticket(self, queue: str, player: str) -> None:
        await self.redis.hdel(keys.queue_keys(queue)[3], player)

    async def requeue(
        self, queue: str, player: str, name: str, *, race: str, rating: int, joined: float,
        now: float,
    ) -> bool:  # fmt: skip
        """Back in the queue, from a match whose race was never made; False if not matched so."""
        args: list[str | int] = [player, race, rating, repr(joined), name, repr(now)]
        return bool(await self._requeue(keys=list(keys.queue_keys(queue)), args=args))

    async def length(self, queue: str) -> int:
        return int(await self.redis.zcard(keys.queue_keys(queue)[0]))


class RematchVote(NamedTuple):
    """The answer to a racer accepting a rematch (``lua/rematch.lua``)."""

    status: str  # not_found, not_a_racer, not_over, tournament, waiting or made
    accepted: int
    racers: int
    race: str | None  # the rematch, once everyone accepted


class RematchStore:
    """Rematch votes, kept beside the finished race (its slot, its expiry)."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        # A first acceptance is announced on the race's channel: a shard channel on a cluster.
        source = script_source("rematch", sharded=store.topology.sharded)
        self._accept = self.redis.register_script(source)

    async def accept(self, race: str, player: str, *, new: str, now: float) -> RematchVote:
        """Count ``player``'s acceptance; the one that completes the set names ``new``.

        A first acceptance is also a ``rematch`` event of the finished race, so
        its other racers are told of the offer (:mod:`server.fanout.rematch_feed`).
        """
        race_keys = [keys.race_meta(race), keys.race_players(race), keys.race_rematch(race)]
        reply = await self._accept(
            keys=[*race_keys, keys.race_events(race)],
            args=[player, new, repr(now), keys.race_channel(race)],
        )
        status = reply_text(reply[0])
        if status == "waiting":
            return RematchVote(status, int(reply[1]), int(reply[2]), None)
        if status == "made":
            return RematchVote(status, int(reply[2]), int(reply[2]), reply_text(reply[1]))
        return RematchVote(status, 0, 0, None)

    async def named(self, race: str) -> str | None:
        """The rematch of ``race``, once everyone accepted."""
        made = await self.redis.hget(keys.race_rematch(race), "race")
        return None if made is None else reply_text(made)
