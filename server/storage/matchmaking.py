"""Quick-race queues kept in Redis: one per variant and race size (docs/players.md).

Every key of matchmaking shares one hash tag (``keys.matchmaking``), so each
transition is one script on one cluster slot and the rules hold across
nodes at every moment: a player has at most one place (``places``) and at
most one match (``matched``), never both; a place moves between queues in
one step (``mm_join``); pairing takes a group out of the queue and marks
its players matched at once (``mm_pair``); a match starts only once every
racer's connection was sent ``matched`` (``mm_told``), and one that cannot
is undone, its other racers back in their queue (``mm_undo``).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from server.storage import keys
from server.storage.cluster import RedisClient
from server.storage.exceptions import storage_edge
from server.storage.replies import reply_text
from server.storage.store import Store

__all__ = [
    "Adopted", "Group", "Placed", "QueueStore", "RematchStore", "RematchVote", "Stand", "Standing",
    "Told", "Undone",
]  # fmt: skip

#: Tries of a compare-and-set on the queue a player waits in (it moves only at their request).
_TRIES = 8


class Group(NamedTuple):
    """Players the queue paired, and the race id they were given."""

    race: str
    racers: dict[str, str]  # player -> display name


class Stand(enum.StrEnum):
    """How a waiting connection stands, as ``mm_vouch`` says."""

    WAITS = "q"  # in its queue, vouched for
    NOT_MADE = "w"  # matched; the race is not made yet
    MADE = "m"  # matched and the race made: tell them
    TOLD = "t"  # told; the other racers are not all told yet
    STARTS = "r"  # every racer was told: the race starts or started
    GONE = "x"  # this connection holds neither a place nor a match now


class Standing(NamedTuple):
    player: str
    stand: Stand
    what: str  # the queue (WAITS) or the race (the others)


class Told(enum.StrEnum):
    """The answer to a racer having been sent ``matched``."""

    GONE = "gone"  # undone meanwhile, or another connection holds their seat
    WAIT = "wait"
    START = "start"  # they were the last: the caller starts the race
    STARTED = "started"


class Undone(NamedTuple):
    """The answer to undoing a match."""

    #: gone, not_holder, started (too late), start (time ran out, all told: start it), undone
    status: str
    made: bool = False
    requeued: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()

    @property
    def racers(self) -> tuple[str, ...]:
        return self.requeued + self.dropped


class Adopted(NamedTuple):
    """A match that a player's new connection took over."""

    race: str
    queue: str
    made: bool
    rating: int


class Placed(NamedTuple):
    """A place that a player's new connection took over."""

    queue: str


@storage_edge
class QueueStore:
    """Typed transitions of the quick-race queues, each one script."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        self.keys = keys.matchmaking()
        scripts = store.scripts
        self._join = scripts["mm_join"]
        self._leave = scripts["mm_leave"]
        self._pair = scripts["mm_pair"]
        self._vouch = scripts["mm_vouch"]
        self._made = scripts["mm_made"]
        self._told = scripts["mm_told"]
        self._started = scripts["mm_started"]
        self._undo = scripts["mm_undo"]
        self._adopt = scripts["mm_adopt"]
        self._forget = scripts["mm_forget"]
        self._due = scripts["mm_due"]

    async def join(
        self, player: str, queue: str, *, holder: str, name: str, rating: int, now: float
    ) -> str | None:
        """Give ``player`` a place in ``queue`` held by ``holder``, moving the one they had;
        None once done, else the race of the match they have (settle it, then ask again)."""
        k, believed = self.keys, ""
        for _ in range(_TRIES):
            old = keys.queue_line(believed or queue)
            reply = await self._join(
                keys=[k.places, k.seen, k.matched, keys.queue_line(queue), old],
                args=[player, queue, holder, name, rating, repr(now), believed],
            )
            status = reply_text(reply[0])
            if status == "queued":
                return None
            if status == "matched":
                return reply_text(reply[1])
            believed = reply_text(reply[1])
        raise RuntimeError(f"{player}'s place kept moving")

    async def leave(self, player: str, *, holder: str = "") -> tuple[str, str]:
        """Take ``player``'s place back (only if ``holder`` holds it, when given):
        ('left', queue), ('none', ''), or ('matched', race) while they have a match."""
        k, believed = self.keys, ""
        for _ in range(_TRIES):
            reply = await self._leave(
                keys=[k.places, k.seen, k.matched, keys.queue_line(believed or "-")],
                args=[player, believed, holder],
            )
            status = reply_text(reply[0])
            if status != "moved":
                return status, reply_text(reply[1]) if len(reply) > 1 else ""
            believed = reply_text(reply[1])
        raise RuntimeError(f"{player}'s place kept moving")

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
        grace: float,
    ) -> list[Group]:
        """Take every group the queue can make now out of it; races are named ``prefix`` and
        a number (the prefix must be fresh: random, say). Each group's match is undone if
        its racers are not all told within ``grace`` seconds."""
        k = self.keys
        reply = await self._pair(
            keys=[k.places, k.seen, k.matched, k.groups, k.pending, k.done_by,
                  keys.queue_line(queue)],
            args=[repr(now), size, base_gap, widen, stale, prefix, queue, grace],
        )  # fmt: skip
        groups = []
        for group in reply:
            texts = [reply_text(value) for value in group]
            racers = dict(zip(texts[1::2], texts[2::2], strict=True))
            groups.append(Group(texts[0], racers))
        return groups

    async def vouch(self, waiters: list[tuple[str, str]], *, now: float) -> list[Standing]:
        """Say that these (player, holder) still wait on their connections; how each stands."""
        k = self.keys
        args: list[str] = [repr(now)]
        for player, holder in waiters:
            args += [player, holder]
        reply = await self._vouch(keys=[k.places, k.seen, k.matched, k.groups], args=args)
        return [Standing(reply_text(p), Stand(reply_text(s)), reply_text(w)) for p, s, w in reply]

    async def made(self, race: str) -> bool:
        """The group's race is made; False if the group was undone meanwhile."""
        return bool(await self._made(keys=[self.keys.groups], args=[race]))

    async def told(
        self, race: str, player: str, *, holder: str, now: float, start_within: float
    ) -> Told:
        """``player``'s connection ``holder`` was sent ``matched``."""
        k = self.keys
        reply = await self._told(
            keys=[k.groups, k.pending], args=[race, player, holder, repr(now), start_within]
        )
        return Told(reply_text(reply))

    async def started(self, race: str, *, forget_at: float) -> None:
        """The race started: its match stays with each racer until ``forget_at``."""
        k = self.keys
        await self._started(
            keys=[k.groups, k.pending, k.matched, k.done_by], args=[race, repr(forget_at)]
        )

    async def undo(
        self, race: str, *, now: float, quitter: str = "", holder: str = "", start_within: float
    ) -> Undone:
        """Undo a match that has not started: ``quitter`` leaves it (from connection
        ``holder`` only, when given), or (when empty) its time ran out and its ghosts are
        dropped; every other racer waits again."""
        k, believed = self.keys, ""
        for _ in range(_TRIES):
            reply = await self._undo(
                keys=[k.places, k.seen, k.matched, k.groups, k.pending,
                      keys.queue_line(believed or "-")],
                args=[race, believed, repr(now), quitter, start_within, holder],
            )  # fmt: skip
            status = reply_text(reply[0])
            if status == "queue":
                believed = reply_text(reply[1])
                continue
            if status != "undone":
                return Undone(status)
            requeued = tuple(reply_text(p) for p in reply[2])
            dropped = tuple(reply_text(p) for p in reply[3])
            return Undone(status, bool(int(reply[1])), requeued, dropped)
        raise RuntimeError(f"match {race}'s queue kept changing")

    async def adopt(self, player: str, *, holder: str, now: float) -> Adopted | Placed | str | None:
        """Give ``holder`` the seat of ``player``'s match that has not started, or else their
        place: the match, or the race id when it starts or started already, or the place,
        or None when they have neither."""
        k = self.keys
        reply = await self._adopt(
            keys=[k.matched, k.groups, k.places, k.seen], args=[player, holder, repr(now)]
        )
        if not reply:
            return None
        status = reply_text(reply[0])
        if status == "started":
            return reply_text(reply[1])
        if status == "place":
            return Placed(reply_text(reply[1]))
        race, queue, made, rating = reply[1:]
        return Adopted(reply_text(race), reply_text(queue), bool(int(made)), int(rating))

    async def forget(self, player: str, race: str) -> bool:
        """``race``, which started, is over for ``player``: they may queue again."""
        k = self.keys
        return bool(await self._forget(keys=[k.matched, k.done_by, k.groups], args=[player, race]))

    async def due(self, *, now: float, limit: int = 50) -> list[tuple[str, str]]:
        """(race, queue) of the matches whose time ran out, and (race, "") of undone races to
        close once more; forgets the matches of races long over."""
        k = self.keys
        reply = await self._due(
            keys=[k.pending, k.groups, k.matched, k.done_by], args=[repr(now), limit]
        )
        return [(reply_text(race), reply_text(queue)) for race, queue in reply]

    async def match_of(self, player: str) -> str | None:
        """The race of ``player``'s match, if they have one."""
        found = await self.redis.hget(self.keys.matched, player)
        return None if found is None else reply_text(found)

    async def place_of(self, player: str) -> str | None:
        """The queue ``player`` waits in, if any."""
        found = await self.redis.hget(self.keys.places, player)
        return None if found is None else reply_text(found).split("|", 1)[0]

    async def length(self, queue: str) -> int:
        return int(await self.redis.zcard(keys.queue_line(queue)))


class RematchVote(NamedTuple):
    """The answer to a racer accepting a rematch (``lua/rematch.lua``)."""

    status: str  # not_found, not_a_racer, not_over, tournament, waiting or made
    accepted: int
    racers: int
    race: str | None  # the rematch, once everyone accepted


@storage_edge
class RematchStore:
    """Rematch votes, kept beside the finished race (its slot, its expiry)."""

    def __init__(self, store: Store) -> None:
        self.redis: RedisClient = store.redis
        # A first acceptance is announced on the race's channel: a shard channel on a cluster.
        self._accept = store.scripts["rematch"]

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
