"""Who is connected to a race: racers marked away when their connection (or
their node) goes, back when it returns, and resigned as ``left`` once away
past the race's grace period."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from protocol.exceptions import ErrorCode
from protocol.results import StopReason
from server.exceptions import RequestRefused
from server.services.batches import batched
from server.services.lobby import DEFAULT_GRACE
from server.services.moves import Moves
from server.settings import Settings
from server.storage.presence import PresenceChange
from server.storage.store import Store

__all__ = ["Presence"]

log = logging.getLogger(__name__)


class Presence:
    """Racers' presence and the resignation of those who abandoned a race."""

    def __init__(self, store: Store, settings: Settings, moves: Moves) -> None:
        self.store = store
        self.settings = settings
        #: Ends the game of a racer away past the grace.
        self.moves = moves

    async def came_back(self, race: str, player: str) -> None:
        """A connection of ``player`` follows ``race`` as a racer: they are here."""
        now = time.time()
        await self.store.presence.mark_here([(race, player)], now)
        await self._back(race, player, now)

    async def claim_seat(self, race: str, player: str, holder: str) -> int:
        """The connection ``holder`` of ``player`` takes their seat in ``race``.

        Only a seat another connection holds is taken with an event, which tells
        that one, on any node, to move there no more. Returns the race's latest
        event number once the seat is ``holder``'s: a claim by another
        connection numbered above it takes the seat away (0: nothing to claim).
        """
        _, latest = await self.store.presence.claim_seat(race, player, holder)
        return latest

    async def release_seat(self, race: str, player: str, holder: str) -> None:
        """The connection ``holder`` closed: the seat it held is nobody's, so that the
        racer's next connection takes it with no event."""
        await self.store.presence.release_seat(race, player, holder)

    async def went_away(self, race: str, player: str, since: float | None = None) -> None:
        """``player``'s connection to ``race`` closed (or its node went silent at ``since``)."""
        since = time.time() if since is None else since
        await self.store.presence.unmark_here(race, player)
        changed, grace = await self._presence(race, player, here=False, since=since)
        if changed:
            await self.store.presence.schedule_leaving(race, player, since + grace)

    async def sweep(self, here: Iterable[tuple[str, str]], now: float) -> None:
        """Keep the racers connected here marked as such, and resign those away too long.

        Any node may do each step: a node whose heartbeat stopped (it died with
        its connections) has its racers marked away, and the resign script
        ends a game only for a racer still away past the grace, exactly once.
        """
        # Hundreds at once when an arena's wave of races starts: 32 at a time, not in turn.
        came = await self.store.presence.mark_here(list(here), now)
        await batched(self._back(race, player, now) for race, player in came)
        unheard = await self.store.presence.unheard_since(now - self.settings.timeouts.unheard)
        await batched(self.went_away(race, player, since=seen) for race, player, seen in unheard)
        for race, player in await self.store.presence.leaving_due(now):
            try:
                status = await self.moves.stop_playing(player, race, now, how=StopReason.LEFT)
            except RequestRefused as exc:
                status = "race_not_open" if exc.code is ErrorCode.RACE_NOT_OPEN else "gone"
            if status == "race_not_open":  # away in the lobby: judged again once it starts
                meta = await self.store.races.meta(race)
                grace = (meta and meta.settings.grace) or DEFAULT_GRACE
                await self.store.presence.schedule_leaving(race, player, now + grace)
                continue
            if status == "ok":
                log.info("race %s: %s left (away past the grace period)", race, player)
            await self.store.presence.schedule_leaving(race, player, None)

    async def _back(self, race: str, player: str, now: float) -> None:
        await self._presence(race, player, here=True, since=now)
        # After the presence: a sweeper that resigns meanwhile finds them back.
        await self.store.presence.schedule_leaving(race, player, None)

    async def _presence(
        self, race: str, player: str, *, here: bool, since: float
    ) -> PresenceChange:
        return await self.store.presence.note(race, player, here=here, since=since)
