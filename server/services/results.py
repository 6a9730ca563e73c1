"""A race's end: closing it once its clock ran out or its last racer stopped,
its standings and revealed seed, held and announced results, and replays."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from protocol.exceptions import ErrorCode
from protocol.messages import RaceFinished
from protocol.moves import Move
from protocol.results import DecidedBy, Standing
from protocol.views import ViewMap
from server.exceptions import RequestRefused
from server.rules.races import Phase, RacerResult, standings
from server.rules.results import RaceResults
from server.services.analysis import Analyst
from server.services.lobby import Lobby
from server.services.race_memory import RaceMemory, StartedRace
from server.settings import Settings
from server.storage.closing import RaceEnd
from server.storage.store import Store

if TYPE_CHECKING:
    from server.services.records import Records

__all__ = ["Results", "race_finished"]

log = logging.getLogger(__name__)


def race_finished(
    race: str, results: RaceResults, *, id: int | None = None, event: int | None = None
) -> RaceFinished:
    """The ``race_finished`` message of a race's stored results, wherever it is sent from
    (the results event, or a later ``get_results``): a winnable deal's line and par too."""
    return RaceFinished(
        id=id,
        race=race,
        standings=results.standings,
        seed=results.seed,
        commitment=results.commitment,
        deal_version=results.deal_version,
        logs=dict(results.logs),
        line=list(results.line) if results.line else None,
        par=results.par,
        draw=results.draw,
        pick=results.pick,
        analysis=results.analysis,
        event=event,
    )


class Results:
    """Closing races and reading what they came to."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        memory: RaceMemory,
        lobby: Lobby,
        records: Records | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.memory = memory
        self.lobby = lobby
        #: Writes accounts' ratings and histories from results (docs/players.md).
        self.records = records
        self._closing: set[str] = set()
        self._closers: set[asyncio.Task[None]] = set()
        #: The post-race analysis, run after the results went out (never before).
        self.analyst = Analyst(store, lobby.solver)
        #: Told the tournament of each tournament race this node closes (the director
        #: moves it on at once, not at its next sweep).
        self.on_tournament_race_closed: Callable[[str], None] | None = None

    # -- closing -------------------------------------------------------------

    def close_soon(self, race: str) -> None:
        """Close ``race`` in the background: its last racer just stopped playing."""
        if race not in self._closing:
            self._closing.add(race)
            task = asyncio.get_running_loop().create_task(self._close(race))
            self._closers.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._closers.discard)

    async def _close(self, race: str) -> None:
        try:
            await self.close_if_done(race)
        except Exception:
            log.exception("closing race %s failed", race)
        finally:
            self._closing.discard(race)

    async def close_if_done(self, race: str, now: float | None = None) -> bool:
        """Close a finished race and publish its results (exactly once overall).

        The race is closed and read in two round trips, its results stored (and the
        race left to expire) in one (:class:`~server.storage.closing.ClosingStore`);
        a rated race's accounts add a few (:class:`~server.services.records.Records`).
        """
        end = await self.store.closing.close(race, time.time() if now is None else now)
        if end is None:
            return False
        started = self.memory.started_from(race, end.meta)
        results = _race_results(started, end, table=end.meta.settings.round_ranked)
        # A tournament table's results (its seed) wait for the other tables
        # racing the same deal: the director announces them at the stage's end.
        hold = end.meta.settings.hold_results
        if self.records is not None:  # rating changes go into the results, once
            results = await self.records.prepare(race, end.meta, results)
        keep = self.settings.timeouts.keep_finished
        stored = await self.store.closing.record(race, results, hold=hold, end=end, keep_for=keep)
        if stored is not None:  # announced (or held) now: the analysis follows them
            self.analyst.analyse_soon(race, stored)
            tournament = end.meta.settings.tournament
            if tournament is not None and self.on_tournament_race_closed is not None:
                self.on_tournament_race_closed(tournament)
        if self.records is not None and results.records and stored is not None:
            # The stored results, not ours: another node may have stored its own first.
            await self.records.write(race, stored)
        return True

    async def sweep(self, now: float | None = None) -> None:
        """Close every race whose clock has run out by ``now``; any node may do it."""
        now = time.time() if now is None else now
        for race in await self.store.lobby.live_races_due(now):
            await self.close_if_done(race, now)

    async def announce_held_results(self, race: str) -> None:
        """Announce results a tournament held back until its other tables finished."""
        await self.store.results.announce(race)

    # -- reading -------------------------------------------------------------

    async def has_results(self, race: str) -> bool:
        return await self.store.results.exist(race)

    async def which_have_results(self, races: Sequence[str]) -> list[bool]:
        """Whether each race's results are stored, asked in one round trip."""
        return await self.store.results.which_exist(races)

    async def stored_results(self, race: str) -> RaceResults | None:
        """The results as stored, seed included, or None before the race closed."""
        return await self.store.results.load(race)

    async def public_results(self, race: str) -> RaceResults:
        """The stored results, once anyone may read them (never a held table's or day's)."""
        if await self.store.results.held(race):
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "these results are not public yet")
        results = await self.stored_results(race)
        if results is None:
            raise RequestRefused(
                ErrorCode.NOT_FOUND, "no results for that race (not over, or gone)"
            )
        return results

    async def replay(self, race: str, player: str) -> tuple[list[str], list[ViewMap]]:
        """A finished race's log for one racer and the view after each move.

        Refused until the race is over: views of an opponent's game while it
        runs would show a racer cards still in their own stock; and until its
        held results are announced, for the same reason.
        """
        info = await self.lobby.info(race)
        if info.phase is not Phase.FINISHED or info.started_at is None:
            raise RequestRefused(ErrorCode.NOT_ALLOWED, "replays open once the race is over")
        # A race that holds its results (a tournament's table, a daily deal's race)
        # keeps its replays until they are announced, and also in the moment
        # between its closing and its results being stored.
        meta = await self.lobby.meta(race)
        held = meta is not None and meta.settings.hold_results
        if held and not await self.store.results.public(race):
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED,
                "replays open once this deal is revealed (every table on it has finished, "
                "or the daily deal's day is over)",
            )
        if player not in info.players:
            raise RequestRefused(ErrorCode.NOT_A_RACER, f"{player!r} did not race here")
        started = await self.memory.started(race)
        game = started.game
        moves = await self.store.boards.log(race, player)
        state = started.opening()
        views = [game.view(state)]
        for text in moves:
            state = game.apply(state, Move.parse(text))
            views.append(game.view(state))
        return moves, views


def _race_results(started: StartedRace, end: RaceEnd, *, table: bool) -> RaceResults:
    """Standings (a rounds tournament's ``table`` ranked as its round is), revealed seed
    and every racer's log, from what closing the race read."""
    racers = [
        RacerResult(
            player=player,
            name=end.names[player],
            status=board.status,
            home=board.home,
            moves=board.seq,
            finished_at=board.finished_at or started.ends_at,
        )
        for player, board in end.boards.items()
    ]
    return RaceResults(
        standings=tuple(
            Standing(
                place=placed.place,
                player=r.player,
                name=r.name,
                status=r.status,
                home=r.home,
                moves=r.moves,
                time=round(max(0.0, r.finished_at - started.started_at), 1),
                by=None if placed.decided_by is None else DecidedBy(placed.decided_by),
            )
            for placed in standings(racers, started.started_at, table=table)
            for r in (placed.item,)
        ),
        seed=started.seed,
        commitment=started.commitment,
        deal_version=started.deal_version,
        variant=started.game.id,
        logs=end.logs,
        # The proof of a winnable deal; its length is the par.
        line=started.line,
        draw=started.draw,
        pick=started.pick,
    )
