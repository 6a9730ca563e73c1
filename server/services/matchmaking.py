"""Quick races: players queue for a variant and a size, and are paired by rating.

The queues live in Redis (:mod:`server.storage.matchmaking`); this node
keeps only who of its own connections waits, so that it can vouch for them
(a player nobody vouches for is dropped from the queue: their node died)
and tell them when they are matched. Every sweep, each node:

1. drops its waiters whose connection closed (a closing connection has
   them dropped at once, too: :meth:`Matchmaker.went_away`), and vouches
   for the others;
2. pairs each queue one of its waiters is in (any node may pair any queue;
   the pairing script is atomic), and makes and starts a race on a fresh
   secret deal for each group;
3. reads the matches of its own waiters: a match whose race exists is
   passed on (``matched``, then the race's events as a racer); a match whose
   race was never made (the pairing node died between pairing and making
   it) puts the player back in the queue, where they were.

The allowed rating gap of a group starts at ``base_gap`` and widens by
``widen`` a second of its longest waiter's wait, as lichess's pools do:
close ratings at first, any opponent after a while.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.messages import MAX_PLAYERS
from server.engine import DEAL_VERSION
from server.exceptions import RequestRefused
from server.rules.races import RaceSettings, Spectate, draw_secret_seed
from server.rules.ratings import Skill
from server.services.lobby import Lobby
from server.services.refusals import variant_or_refusal
from server.storage.matchmaking import Group, QueueStore
from server.storage.players import PlayerStore

__all__ = ["QUICK_HOST", "Matchmaker", "QuickSettings", "Waiter"]

log = logging.getLogger(__name__)

#: The host of every quick race: no player has this id, so none can start one.
QUICK_HOST = "quick"


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickSettings:
    """How quick races pair and what they are."""

    base_gap: float = 100.0  # displayed rating points apart, at once
    widen: float = 25.0  # more points allowed per second waited
    stale: float = 5.0  # seconds unvouched before a waiter counts as gone
    orphan_after: float = 10.0  # seconds a match may wait for its race to be made
    time_limit: int = 300
    #: Spectated only after the results: no racer's second client (a guest's) sees the deal.
    spectate: str = "after"
    delay: int = 0


@dataclass(slots=True)
class Waiter:
    """One of this node's connections waiting in a queue."""

    player: str
    name: str
    variant: str
    size: int
    rating: int
    joined: float
    #: Called with the race id once matched: tells the client and follows the race.
    notify: Callable[[str], Awaitable[None]] = field(repr=False)
    #: Whether the connection is still open.
    alive: Callable[[], bool] = field(repr=False)

    @property
    def queue(self) -> str:
        return f"{self.variant}:{self.size}"


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
        self,
        player: str,
        name: str,
        variant: str,
        size: int,
        *,
        notify: Callable[[str], Awaitable[None]],
        alive: Callable[[], bool],
    ) -> Waiter:
        """Queue ``player`` for a race of ``size`` in ``variant``, at their rating."""
        game = variant_or_refusal(variant)
        if not 2 <= size <= MAX_PLAYERS:
            raise RequestRefused(ErrorCode.INVALID_FIELD, f"a quick race has 2..{MAX_PLAYERS}")
        if player in self.waiting:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "you are in a queue already")
        rating = await self._rating(player, game.id)
        now = time.time()
        waiter = Waiter(player, name, game.id, size, rating, now, notify, alive)
        joined = await self.queues.join(
            waiter.queue, player, name, rating, now=now, claim_ttl=self.settings.stale
        )
        if not joined:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED, "you are in a queue already (on another connection)"
            )
        self.waiting[player] = waiter
        return waiter

    async def leave(self, player: str) -> Waiter:
        """Take ``player``'s place in their queue back; refused if this node has none."""
        waiter = self.waiting.get(player)
        if waiter is None:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "you are in no queue here")
        if not await self.queues.leave(waiter.queue, player):
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "too late: you were matched, it starts")
        del self.waiting[player]
        return waiter

    # -- every sweep -----------------------------------------------------------

    async def went_away(self, player: str) -> None:
        """``player``'s connection closed: if it held their place in a queue, give it up now.

        Not left to the next sweep: meanwhile another node could pair the
        gone player, whose node vouched for them a moment ago. A place in a
        queue belongs to a connection and has no grace period to come back
        in (a client that reconnects queues again): a player paired while
        away would cost their opponents a race against nobody.
        """
        waiter = self.waiting.get(player)
        if waiter is not None and not waiter.alive():
            await self._drop(waiter)

    async def _drop(self, waiter: Waiter) -> None:
        """Take a waiter whose connection closed out of their queue."""
        if self.waiting.get(waiter.player) is not waiter:
            return  # dropped meanwhile, by a sweep or the close itself
        del self.waiting[waiter.player]
        if not await self.queues.leave(waiter.queue, waiter.player):
            # Matched as they went: the race stands, and they may resume it.
            await self.queues.drop_ticket(waiter.queue, waiter.player)
            await self.queues.release(waiter.player)

    async def tick(self) -> None:
        """Vouch, pair and pass matches on, for this node's waiters."""
        if not self.waiting:
            return
        for waiter in [w for w in self.waiting.values() if not w.alive()]:
            await self._drop(waiter)
        by_queue: dict[str, list[Waiter]] = {}
        for waiter in self.waiting.values():
            by_queue.setdefault(waiter.queue, []).append(waiter)
        now = time.time()
        await self.queues.vouch(
            {q: [w.player for w in ws] for q, ws in by_queue.items()},
            now=now,
            claim_ttl=self.settings.stale,
        )
        for queue, waiters in by_queue.items():
            for group in await self._pair(queue, waiters[0], now):
                await self._make_race(waiters[0].variant, group)
            await self._pass_on(queue, waiters)

    async def _pair(self, queue: str, any_waiter: Waiter, now: float) -> list[Group]:
        return await self.queues.pair(
            queue,
            now=now,
            size=any_waiter.size,
            base_gap=self.settings.base_gap,
            widen=self.settings.widen,
            stale=self.settings.stale,
            prefix=f"q{secrets.token_hex(6)}-",
        )

    async def _make_race(self, variant: str, group: Group) -> None:
        """A seated race for a group, on a fresh secret deal, started (safe to repeat)."""
        quick = self.settings
        race_settings = RaceSettings(
            variant=variant, seed=draw_secret_seed(), deal_version=DEAL_VERSION,
            time_limit=quick.time_limit, spectate=Spectate(quick.spectate), delay=quick.delay,
        )  # fmt: skip
        await self.lobby.create_seated(group.race, QUICK_HOST, group.racers, race_settings)
        with contextlib.suppress(RequestRefused):  # started already
            await self.lobby.start(QUICK_HOST, group.race)
        log.info("quick race %s: %d racers", group.race, len(group.racers))

    async def _pass_on(self, queue: str, waiters: list[Waiter]) -> None:
        tickets = await self.queues.tickets(queue, [w.player for w in waiters])
        now = time.time()
        for waiter in waiters:
            ticket = tickets.get(waiter.player)
            if ticket is None:
                continue
            meta = await self.lobby.meta(ticket.race)
            if meta.get("status") == "open" and now - ticket.at > self.settings.orphan_after:
                with contextlib.suppress(RequestRefused):  # made, never started: start it
                    await self.lobby.start(QUICK_HOST, ticket.race)
                meta = await self.lobby.meta(ticket.race)
            if meta and meta.get("status") != "open":
                del self.waiting[waiter.player]
                await self.queues.drop_ticket(queue, waiter.player)
                await self.queues.release(waiter.player)
                try:
                    await waiter.notify(ticket.race)
                except (ConnectionError, RequestRefused) as exc:  # they can still resume it
                    log.info(
                        "could not tell %s of quick race %s: %s", waiter.player, ticket.race, exc
                    )
            elif not meta and now - ticket.at > self.settings.orphan_after:
                log.info("quick race %s was never made: %s waits again", ticket.race, waiter.player)
                await self.queues.requeue(
                    queue, waiter.player, waiter.name, race=ticket.race, rating=waiter.rating,
                    joined=waiter.joined, now=now,
                )  # fmt: skip

    async def _rating(self, player: str, variant: str) -> int:
        """The displayed rating to pair on: a guest's is a newcomer's."""
        if is_guest(player):
            return Skill().display
        found = await self.players.skills(player, [variant])
        return Skill(*found[variant]).display if variant in found else Skill().display
