"""Post-race analysis, after the results: where each racer's deal stopped being winnable.

The results go out first, untouched; then the analysis runs in the node's
solver pool (:class:`~server.services.solving.SolverPool`), one job for the
opening and one per racer, each bounded by
:attr:`~server.settings.Solving.analysis` seconds, and its answer is stored
beside the results and announced
(:meth:`~server.storage.results.ResultStore.record_analysis`), so
``get_results`` and later readers find it too. A job that gives no answer in
time makes that racer's analysis ``unknown``: the racers are never left
waiting for one.

Nobody waits for an analysis, so it runs only on CPU the node's races leave
(:attr:`~server.services.solving.Priority.IDLE`, workers apart from the
hints'), and analyses take turns: one job at a time from all of a node's
analyses, so that they hold one worker however many races close. Races can
close faster than their analyses run (bots racing back to back): at most
:data:`BACKLOG` races wait for a turn, and a race closing beyond that is
stored as ``unknown`` at once, so the waiting work and its memory stay
bounded however fast races close.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence

from protocol.results import RaceAnalysis, RacerAnalysis, Winnability
from server.engine import find_variant
from server.engine.solver import Outcome
from server.rules.analysis import analyse_opening, analyse_racer
from server.rules.results import RaceResults
from server.services.solving import Priority, SolverPool
from server.storage.store import Store

__all__ = ["Analyst", "opening_in_worker", "racer_in_worker"]

log = logging.getLogger(__name__)

#: Races whose analysis may wait for the pool at once; more are analysed ``unknown``.
BACKLOG = 32


def opening_in_worker(
    variant: str, seed: int, deal_version: int, line: Sequence[str], seconds: float
) -> tuple[str, int | None]:
    """What a solver worker runs first: the deal's outcome (its value) and the par."""
    game = find_variant(variant)
    outcome, par = analyse_opening(
        game, game.deal(seed, deal_version), line=line, seconds=seconds, clock=time.monotonic
    )
    return outcome.value, par


def racer_in_worker(
    variant: str,
    seed: int,
    deal_version: int,
    player: str,
    moves: Sequence[str],
    opening: str,
    seconds: float,
) -> dict[str, object]:
    """What a solver worker runs for one racer who did not win: their analysis's map."""
    game = find_variant(variant)
    analysis = analyse_racer(
        game, game.deal(seed, deal_version), moves, player=player, won=False,
        opening_outcome=Outcome(opening), seconds=seconds, clock=time.monotonic,
    )  # fmt: skip
    return analysis.to_data()


def unknown_analysis(results: RaceResults) -> RaceAnalysis:
    """The analysis when the solver gave none in time: unknown, but for the winners."""
    racers = tuple(
        RacerAnalysis(s.player, Winnability.WON if s.won else Winnability.UNKNOWN)
        for s in results.standings
    )
    return RaceAnalysis(results.par, racers)


class Analyst:
    """Runs races' analyses in the background, one task per race, never awaited by closing."""

    def __init__(self, store: Store, solver: SolverPool, *, backlog: int = BACKLOG) -> None:
        self.store = store
        self.solver = solver
        self.backlog = backlog
        self._tasks: set[asyncio.Task[None]] = set()
        #: Analyses that wait for the solver or run in it (not the ones given up at once).
        self.waiting = 0
        #: One analysis job in the pool at a time, whichever race it is for.
        self._turn = asyncio.Lock()

    def analyse_soon(self, race: str, results: RaceResults) -> None:
        """Analyse ``race``'s stored ``results`` in the background, then store and announce it
        (``unknown`` at once when :attr:`backlog` races already wait)."""
        if self.waiting >= self.backlog:
            log.warning(
                "race %s: %d analyses wait already; this one is unknown", race, self.waiting
            )
            work = self._record(race, results, unknown_analysis(results))
        else:
            self.waiting += 1  # counted now: the task may not start before the next race closes
            work = self._analyse(race, results)
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._tasks.discard)

    async def analyse(self, results: RaceResults) -> RaceAnalysis:
        """The analysis of ``results``: the solver's, unknown where it ran out of time."""
        seconds = self.solver.solving.analysis
        deal = (results.variant, results.seed, results.deal_version)
        async with self._turn:
            opening = await self.solver.run(
                seconds, opening_in_worker, *deal, results.line, seconds, priority=Priority.IDLE
            )
        if opening is None:
            return unknown_analysis(results)
        outcome, par = opening
        racers: list[RacerAnalysis] = []
        for standing in results.standings:
            player = standing.player
            if standing.won:
                racers.append(RacerAnalysis(player, Winnability.WON))
                continue
            if outcome != Outcome.WINNABLE.value:  # nothing to search: never, or unknown
                never = outcome == Outcome.UNWINNABLE.value
                verdict = Winnability.NEVER if never else Winnability.UNKNOWN
                racers.append(RacerAnalysis(player, verdict))
                continue
            moves = list(results.logs.get(player, ()))
            if not moves:  # their board is the opening, which is winnable
                racers.append(RacerAnalysis(player, Winnability.KEPT))
                continue
            async with self._turn:
                found = await self.solver.run(
                    seconds,
                    racer_in_worker,
                    *deal,
                    player,
                    moves,
                    outcome,
                    seconds,
                    priority=Priority.IDLE,
                )
            unknown = RacerAnalysis(player, Winnability.UNKNOWN)
            racers.append(unknown if found is None else RacerAnalysis.from_data(found))
        return RaceAnalysis(par, tuple(racers))

    async def _analyse(self, race: str, results: RaceResults) -> None:
        try:
            analysis = await self.analyse(results)
        except Exception:
            log.exception("the analysis of race %s failed", race)
            return
        finally:
            self.waiting -= 1
        await self._record(race, results, analysis)

    async def _record(self, race: str, results: RaceResults, analysis: RaceAnalysis) -> None:
        try:
            done = dataclasses.replace(results, analysis=analysis)
            await self.store.results.record_analysis(race, done)
        except Exception:
            log.exception("the analysis of race %s could not be stored", race)

    async def close(self) -> None:
        """Stop the analyses under way (their races' results stand without one)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
