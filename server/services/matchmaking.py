"""Quick races: players queue for a variant and a size, and are paired by rating.

The queues live in Redis (:mod:`server.storage.matchmaking`), where each
transition is one script, so the rules hold across nodes whatever dies
(docs/players.md, *Quick races*): a player has at most one place and at
most one match; a place is the player's, held by the connection that last
asked for it; a match's race starts only once every racer's connection was
sent ``matched``, and a match that cannot be told to all within
``QuickSettings.grace`` is undone, its other racers back in their queue and
told so.

This node keeps its own waiting connections (:class:`Waiter`). Every sweep
it:

1. undoes (or starts) the matches whose time ran out, whoever's they are;
2. vouches for its waiters, and hears how each stands: a made match is
   told (``matched``, then the race's events), an undone one is said
   (``queue`` with ``queued: true``), a place lost is said (``queued:
   false``);
3. pairs each queue one of its waiters is in (any node may pair any queue),
   makes each group's race, and tells its own racers at once.

The allowed rating gap of a group starts at ``base_gap`` and widens by
``widen`` a second of its longest waiter's wait, as lichess's pools do:
close ratings at first, any opponent after a while.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Protocol

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.messages import MAX_PLAYERS
from server.engine import DEAL_VERSION
from server.exceptions import RequestRefused
from server.rules.races import RaceSettings, Spectate
from server.rules.ratings import Skill
from server.services.lobby import Lobby
from server.services.refusals import variant_or_refusal
from server.storage.draws import draw_secret_seed
from server.storage.matchmaking import Adopted, Group, Placed, QueueStore, Stand, Told, Undone
from server.storage.players import PlayerStore
from server.storage.races import RaceStatus

__all__ = ["QUICK_HOST", "Link", "Matchmaker", "QuickSettings", "Waiter"]

log = logging.getLogger(__name__)

#: The host of every quick race: no player has this id, so none can start one.
QUICK_HOST = "quick"


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickSettings:
    """How quick races pair and what they are."""

    base_gap: float = 100.0  # displayed rating points apart, at once
    widen: float = 25.0  # more points allowed per second waited
    stale: float = 5.0  # seconds unvouched before a place counts as gone (its node died)
    #: Seconds a match waits for every racer's connection to be told, from the pairing:
    #: a racer whose node died has this long to come back (hello, login) and be told.
    grace: float = 3.0
    time_limit: int = 300
    #: Spectated only after the results: no racer's second client (a guest's) sees the deal.
    spectate: str = "after"
    delay: int = 0


class Link(Protocol):
    """What the matchmaker tells a waiting connection (server/net implements it)."""

    def open(self) -> bool:
        """Whether the connection is still open."""

    async def matched(self, race: str) -> None:
        """Send ``matched`` for ``race``, then follow the race as a racer."""

    async def unfollow(self, race: str) -> None:
        """Stop following ``race`` (its match was undone)."""

    def requeued(self, waiter: Waiter) -> None:
        """Say the player waits again in the waiter's queue (their match was undone)."""

    def dropped(self) -> None:
        """Say the player waits no more (their place went without their asking)."""


@dataclass(slots=True)
class Waiter:
    """One of this node's connections holding a player's place or match seat."""

    player: str
    name: str
    variant: str
    size: int
    rating: int
    #: This connection's token in the queue's records: a place or a seat is held by one.
    holder: str
    link: Link = field(repr=False)
    #: The race this connection was sent ``matched`` for, before it started.
    told: str | None = None

    @property
    def queue(self) -> str:
        return f"{self.variant}:{self.size}"


def _queue_parts(queue: str) -> tuple[str, int]:
    variant, size = queue.rsplit(":", 1)
    return variant, int(size)


class Matchmaker:
    """This node's part in the quick-race queues."""

    def __init__(
        self,
        queues: QueueStore,
        players: PlayerStore,
        lobby: Lobby,
        settings: QuickSettings | None = None,
    ) -> None:
        self.queues = queues
        self.players = players
        self.lobby = lobby
        self.settings = settings or QuickSettings()
        self.waiting: dict[str, Waiter] = {}

    # -- requests ------------------------------------------------------------

    async def join(
        self, player: str, name: str, variant: str, size: int, link: Link
    ) -> tuple[Waiter, str | None]:
        """Queue ``player`` for a race of ``size`` in ``variant``, at their rating, on
        ``link``: the waiter, and the race of a match of theirs for that very queue that
        did not start yet (the caller replies, then :meth:`tell` s it)."""
        game = variant_or_refusal(variant)
        if not 2 <= size <= MAX_PLAYERS:
            raise RequestRefused(ErrorCode.INVALID_FIELD, f"a quick race has 2..{MAX_PLAYERS}")
        rating = await self._rating(player, game.id)
        waiter = Waiter(player, name, game.id, size, rating, secrets.token_hex(6), link)
        for _ in range(4):  # each turn settles one match; a player has at most one
            race = await self.queues.join(
                player, waiter.queue, holder=waiter.holder, name=name, rating=rating,
                now=time.time(),
            )  # fmt: skip
            if race is None:
                self.waiting[player] = waiter
                return waiter, None
            adopted = await self._settle(player, race, waiter)
            if adopted is not None:
                waiter.rating = adopted.rating
                self.waiting[player] = waiter
                return waiter, adopted.race if adopted.made else None
        raise RequestRefused(ErrorCode.UNAVAILABLE, "the queue is busy: ask again")

    async def _settle(self, player: str, race: str, waiter: Waiter) -> Adopted | None:
        """``player``, asking for ``waiter``'s queue, has a match: take it over if it is for
        that queue and did not start; undo it if it is for another; forget it if its race is
        over for them; else refuse (they race in it)."""
        now = time.time()
        adopted = await self.queues.adopt(player, holder=waiter.holder, now=now)
        if isinstance(adopted, Adopted):
            if adopted.queue == waiter.queue:
                return adopted
            await self._undo(adopted.race, quitter=player)
            return None
        if adopted is None or isinstance(adopted, Placed):
            return None  # gone meanwhile: ask again
        if await self._over_for(player, adopted):
            await self._forget(player, adopted)
            return None
        raise RequestRefused(
            ErrorCode.NOT_ALLOWED, f"you race in quick race {adopted}: finish or resign it first"
        )

    async def leave(self, player: str) -> Waiter | None:
        """Take ``player``'s place back, or undo their match that did not start (from any of
        their connections); refused if they wait nowhere or their race started."""
        waiter = self.waiting.pop(player, None)
        for _ in range(4):
            status, what = await self.queues.leave(player)
            if status == "left":
                return waiter
            if status == "none":
                raise RequestRefused(ErrorCode.NOT_ALLOWED, "you are in no queue")
            undone = await self._undo(what, quitter=player)
            if undone.status == "undone":
                if waiter is not None and waiter.told is not None:
                    await waiter.link.unfollow(waiter.told)
                return waiter
            if undone.status == "gone" and await self.queues.match_of(player) == what:
                # Its group is gone and the player is still matched to it: it started.
                if await self._over_for(player, what):
                    await self._forget(player, what)
                    continue
                undone = Undone("started")
            if undone.status == "started":
                raise RequestRefused(
                    ErrorCode.NOT_ALLOWED, f"too late: you race in quick race {what}"
                )
        raise RequestRefused(ErrorCode.UNAVAILABLE, "the queue is busy: ask again")

    async def came_back(self, player: str, name: str, link: Link) -> None:
        """``player`` said hello (or logged in) on ``link``, which holds what they have now:
        their quick race that is not over for them is told at once (``matched``, then its
        events), whether or not an earlier connection was told; else their place in a
        queue is said (``queue`` with ``queued: true``)."""
        waiter = Waiter(player, name, "", 0, 0, secrets.token_hex(6), link)
        adopted = await self.queues.adopt(player, holder=waiter.holder, now=time.time())
        if adopted is None:
            return  # the usual case: one script, nothing found
        if isinstance(adopted, str):  # it starts or started: follow it, if it is still on
            if await self._over_for(player, adopted):
                await self._forget(player, adopted)
            else:
                await link.matched(adopted)
            return
        waiter.variant, waiter.size = _queue_parts(adopted.queue)
        self.waiting[player] = waiter
        if isinstance(adopted, Placed):
            waiter.rating = await self._rating(player, waiter.variant)
            link.requeued(waiter)
            return
        waiter.rating = adopted.rating
        if adopted.made:
            await self.tell(waiter, adopted.race)

    async def went_away(self, player: str) -> None:
        """``player``'s connection closed: if it held their place, the place goes now; if it
        held their seat in a match that did not start, the match is undone now.

        Not left to the next sweep: meanwhile another node could pair the gone
        player. (A node that dies cannot do this: its places go stale, and its
        matches wait ``grace`` for their players to come back.)
        """
        waiter = self.waiting.get(player)
        if waiter is None or waiter.link.open():
            return
        del self.waiting[player]
        status, race = await self.queues.leave(player, holder=waiter.holder)
        if status == "matched":  # given up only if this connection holds the seat
            await self._undo(race, quitter=player, holder=waiter.holder)

    # -- every sweep -----------------------------------------------------------

    async def tick(self) -> None:
        """Settle due matches, vouch and hear, pair and tell, for this node's waiters."""
        due = await self.queues.due(now=time.time())
        await asyncio.gather(
            *(self._undo(race) if queue else self._close_again(race) for race, queue in due)
        )
        if not self.waiting:
            return
        for waiter in [w for w in self.waiting.values() if not w.link.open()]:
            await self.went_away(waiter.player)
        waiters = list(self.waiting.values())
        standings = await self.queues.vouch(
            [(w.player, w.holder) for w in waiters], now=time.time()
        )
        # Each waiter and each group on its own: a sweep that tells and makes one after
        # another would let the matches of a busy node run out of time.
        await asyncio.gather(
            *(self._hear(w, st.stand, st.what) for w, st in zip(waiters, standings, strict=True))
        )
        by_queue: dict[str, Waiter] = {}
        for waiter, standing in zip(waiters, standings, strict=True):
            if standing.stand is Stand.WAITS:
                by_queue.setdefault(waiter.queue, waiter)
        for queue, waiter in by_queue.items():
            groups = await self._pair(queue, waiter.size)
            await asyncio.gather(*(self._make_race(waiter.variant, g) for g in groups))

    async def _hear(self, waiter: Waiter, stand: Stand, what: str) -> None:
        """Act on how a waiter stands (as the vouch found it: only if it is still this
        node's waiter for the player, which a request of theirs replaces)."""
        if self.waiting.get(waiter.player) is not waiter:
            return  # replaced meanwhile
        if stand is Stand.WAITS:
            if waiter.told is not None:  # their match was undone: they wait again
                # Said before any await: a request of theirs handled meanwhile (a new
                # waiter, a new match told) must not be followed by this older news.
                race, waiter.told = waiter.told, None
                waiter.link.requeued(waiter)
                await waiter.link.unfollow(race)
        elif stand is Stand.MADE:
            if waiter.told != what:
                await self.tell(waiter, what)
        elif stand is Stand.STARTS:
            del self.waiting[waiter.player]  # the connection follows its race
        elif stand is Stand.GONE:
            del self.waiting[waiter.player]
            if waiter.told is None and waiter.link.open():
                waiter.link.dropped()

    async def tell(self, waiter: Waiter, race: str) -> None:
        """Send ``matched`` on the waiter's connection, then note it; start the race if it
        was the last racer to be told. Sent before noted: a racer noted told has been sent
        it (a node dying in between leaves the match untold, to come back or be undone)."""
        try:
            await waiter.link.matched(race)
        except (ConnectionError, RequestRefused) as exc:
            log.info("could not tell %s of quick race %s: %s", waiter.player, race, exc)
            return
        waiter.told = race
        told = await self.queues.told(
            race, waiter.player, holder=waiter.holder, now=time.time(),
            start_within=self.settings.grace,
        )  # fmt: skip
        if told is Told.START:
            await self._start(race)

    async def _pair(self, queue: str, size: int) -> list[Group]:
        quick = self.settings
        return await self.queues.pair(
            queue, now=time.time(), size=size, base_gap=quick.base_gap, widen=quick.widen,
            stale=quick.stale, prefix=f"q{secrets.token_hex(6)}-", grace=quick.grace,
        )  # fmt: skip

    async def _make_race(self, variant: str, group: Group) -> None:
        """A seated race for a group, on a fresh secret deal, not started: it starts once
        every racer was told. This node's own racers are told at once.

        The group is marked made before the race is stored: a match undone first is never
        made; one undone meanwhile (this node stalled past the grace) is closed again.
        """
        quick = self.settings
        if not await self.queues.made(group.race):
            log.info("quick race %s was undone before it was made", group.race)
            return
        race_settings = RaceSettings(
            variant=variant, seed=draw_secret_seed(), deal_version=DEAL_VERSION,
            time_limit=quick.time_limit, spectate=Spectate(quick.spectate), delay=quick.delay,
        )  # fmt: skip
        await self.lobby.create_seated(group.race, QUICK_HOST, group.racers, race_settings)
        # Undone meanwhile: its group is gone and its racers are matched to it no more
        # (a group gone with its racers still matched to it has started).
        first = next(iter(group.racers))
        if await self.queues.match_of(first) != group.race and not await self.queues.made(
            group.race
        ):
            log.info("quick race %s was undone while it was made", group.race)
            await self._close(group.race, tuple(group.racers))
            return
        log.info("quick race %s: %d racers", group.race, len(group.racers))
        for player in group.racers:
            waiter = self.waiting.get(player)
            if waiter is not None and waiter.told is None:
                await self.tell(waiter, group.race)

    async def _start(self, race: str) -> None:
        """Start a race whose racers were all told (safe to repeat)."""
        with contextlib.suppress(RequestRefused):  # started already
            await self.lobby.start(QUICK_HOST, race)
        countdown = self.lobby.settings.timeouts.countdown
        forget_at = time.time() + countdown + self.settings.time_limit + 60.0
        await self.queues.started(race, forget_at=forget_at)

    async def _undo(self, race: str, quitter: str = "", holder: str = "") -> Undone:
        """Undo ``race``'s match (``quitter`` leaves it; none: its time ran out), or start it
        when its time ran out with every racer told (a node died starting it)."""
        undone = await self.queues.undo(
            race, now=time.time(), quitter=quitter, holder=holder,
            start_within=self.settings.grace,
        )  # fmt: skip
        if undone.status == "start":
            await self._start(race)
        elif undone.status == "undone":
            log.info(
                "quick race %s undone: %s back in the queue, %s dropped",
                race, list(undone.requeued), list(undone.dropped),
            )  # fmt: skip
            await self._close(race, undone.racers)
        return undone

    async def _close(self, race: str, racers: tuple[str, ...]) -> None:
        """Close the race of an undone match: every racer leaves it (its followers hear)."""
        for player in racers:
            with contextlib.suppress(RequestRefused):  # not made, or closed already
                await self.lobby.leave(player, race)

    async def _forget(self, player: str, race: str) -> None:
        """Forget ``player``'s match: its race, which started, is over for them. A match whose
        starting node died before it noted the start is noted started first."""
        if not await self.queues.forget(player, race):
            await self._start(race)  # safe to repeat
            await self.queues.forget(player, race)

    async def _close_again(self, race: str) -> None:
        """Close an undone race once more: its maker may have stored it after the undo."""
        await self._close(race, tuple(await self.lobby.players(race)))

    async def _over_for(self, player: str, race: str) -> bool:
        """Whether a quick race whose racers were all told is over for ``player`` (their game
        ended, or the race did); one about to start is not."""
        meta = await self.lobby.meta(race)
        if meta is None or meta.status is RaceStatus.FINISHED:
            return True
        if meta.status is RaceStatus.OPEN:
            return False
        board = await self.lobby.store.boards.board(race, player)
        return board is None or board.status.finished

    async def _rating(self, player: str, variant: str) -> int:
        """The displayed rating to pair on: a guest's is a newcomer's."""
        if is_guest(player):
            return Skill().display
        found = await self.players.skills(player, [variant])
        return Skill(*found[variant]).display if variant in found else Skill().display
