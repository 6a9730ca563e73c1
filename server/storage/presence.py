"""Who is connected to which race, kept in Redis so that any node can tell.

Three things are kept. Each racer's presence in the race's meta hash
(``away:P``: since when they are away), changed by ``presence.lua`` with an
event. Which connection holds a racer's seat (``seat:P``), taken by
``seat_claim.lua`` and given up by ``seat_release.lua``. And two sorted sets
across races: :data:`keys.RACERS_HERE`, when a node last said each racer is
connected to it (a node gone silent leaves its racers unheard), and
:data:`keys.RACERS_AWAY`, when each racer away is to be resigned as having
left unless they come back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from server.rules.events import PresenceChanged, SeatClaimed
from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.event_codec import encode_event
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text
from server.storage.scripts import ScriptRegistry

__all__ = ["PresenceChange", "PresenceStore", "Racer", "SeatClaim", "UnheardRacer"]


class Racer(NamedTuple):
    """A racer in a race."""

    race: str
    player: str

    def member(self) -> str:
        """The racer as one member of the sorted sets (ids hold no spaces)."""
        return f"{self.race} {self.player}"

    @classmethod
    def from_member(cls, member: object) -> Racer:
        race, player = reply_text(member).split(" ", 1)
        return cls(race, player)


class UnheardRacer(NamedTuple):
    """A racer no node has said is connected since ``seen``."""

    race: str
    player: str
    seen: float


class PresenceChange(NamedTuple):
    """What noting a racer here or away did: whether it changed anything (then it
    was announced), and the race's grace period in seconds."""

    changed: bool
    grace: int


class SeatClaim(NamedTuple):
    """A seat taken: the claim's event number (0: no event, nobody else held it) and
    the race's latest event number then (both 0: there was no seat to take)."""

    event: int
    latest: int


@storage_edge
class PresenceStore:
    """Typed operations on the Redis model of who is connected."""

    def __init__(self, client: RedisClient, scripts: ScriptRegistry) -> None:
        self.redis = client
        self._scripts = scripts

    async def note(self, race: str, player: str, *, here: bool, since: float) -> PresenceChange:
        """Note that a racer came back or went away (since ``since``), announcing
        it (:class:`PresenceChanged`) if that changed anything."""
        event = PresenceChanged(player, None if here else since)
        changed, _, grace = await self._scripts.run(
            "presence",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [player, repr(since), int(here), keys.race_channel(race), encode_event(event)],
        )
        return PresenceChange(bool(changed), int(grace))

    async def claim_seat(self, race: str, player: str, holder: str) -> SeatClaim:
        """The connection ``holder`` of ``player`` takes their seat in ``race``.

        The claim is an event (:class:`SeatClaimed`) only when another connection held
        the seat.
        """
        event, latest = await self._scripts.run(
            "seat_claim",
            [keys.race_meta(race), keys.race_players(race), keys.race_events(race)],
            [player, holder, keys.race_channel(race), encode_event(SeatClaimed(player, holder))],
        )
        return SeatClaim(int(event), int(latest))

    async def release_seat(self, race: str, player: str, holder: str) -> bool:
        """The connection ``holder`` closed: it gives up ``player``'s seat, if it holds it."""
        return bool(
            await self._scripts.run("seat_release", [keys.race_meta(race)], [player, holder])
        )

    async def mark_here(self, pairs: Sequence[tuple[str, str]], now: float) -> list[Racer]:
        """These racers (``race, player``) are connected to this node now; returns
        those that were not marked (taken for gone while this node was silent)."""
        if not pairs:
            return []
        racers = [Racer(*pair) for pair in pairs]
        members = [racer.member() for racer in racers]
        # Two commands whatever the number of racers: a node may hold thousands.
        known = await self.redis.zmscore(keys.RACERS_HERE, members)
        await self.redis.zadd(keys.RACERS_HERE, dict.fromkeys(members, now))
        return [racer for racer, score in zip(racers, known, strict=True) if score is None]

    async def unmark_here(self, race: str, player: str) -> None:
        await self.redis.zrem(keys.RACERS_HERE, Racer(race, player).member())

    async def unheard_since(self, before: float, limit: int = 100) -> list[UnheardRacer]:
        """Racers no node has said are connected since ``before``: their node is gone."""
        found: list[Any] = await self.redis.zrangebyscore(
            keys.RACERS_HERE, "-inf", before, start=0, num=limit, withscores=True
        )
        return [UnheardRacer(*Racer.from_member(member), float(score)) for member, score in found]

    async def schedule_leaving(self, race: str, player: str, at: float | None) -> None:
        """Resign a racer as having left at ``at`` unless they come back (None: they came back)."""
        member = Racer(race, player).member()
        if at is None:
            await self.redis.zrem(keys.RACERS_AWAY, member)
        else:
            await self.redis.zadd(keys.RACERS_AWAY, {member: at})

    async def leaving_due(self, now: float, limit: int = 100) -> list[Racer]:
        """Racers whose grace period has run out by ``now``."""
        due = await self.redis.zrangebyscore(keys.RACERS_AWAY, "-inf", now, start=0, num=limit)
        return [Racer.from_member(member) for member in due]
