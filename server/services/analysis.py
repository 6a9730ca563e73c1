"""Post-race analysis, after the results: where each racer's deal stopped being winnable.

The results go out first, untouched; then one solve job per race runs in the
node's solver pool (:class:`~server.services.solving.SolverPool`), bounded by
:attr:`~server.settings.Solving.analysis` seconds per racer (and as much
again for the opening), and its answer is stored beside the results and
announced (:meth:`~server.storage.results.ResultStore.record_analysis`), so
``get_results`` and later readers find it too. When the pool gives no answer
in time, every racer's analysis is ``unknown``: the racers are never left
waiting for one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Mapping, Sequence

from protocol.results import RaceAnalysis, RacerAnalysis, Winnability
from server.engine import find_variant
from server.rules.analysis import analyse_race
from server.rules.results import RaceResults
from server.services.solving import SolverPool
from server.storage.store import Store

__all__ = ["Analyst", "analyse_in_worker"]

log = logging.getLogger(__name__)


def analyse_in_worker(
    variant: str,
    seed: int,
    deal_version: int,
    logs: Mapping[str, Sequence[str]],
    winners: Sequence[str],
    line: Sequence[str],
    seconds: float,
) -> dict[str, object]:
    """What a solver worker runs: the race's analysis as its map (plain values cross)."""
    game = find_variant(variant)
    opening = game.deal(seed, deal_version)
    analysis = analyse_race(
        game, opening, logs, set(winners), line=line, seconds=seconds, clock=time.monotonic
    )
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

    def __init__(self, store: Store, solver: SolverPool) -> None:
        self.store = store
        self.solver = solver
        self._tasks: set[asyncio.Task[None]] = set()

    def analyse_soon(self, race: str, results: RaceResults) -> None:
        """Analyse ``race``'s stored ``results`` in the background, then store and announce it."""
        task = asyncio.get_running_loop().create_task(self._analyse(race, results))
        self._tasks.add(task)  # the loop keeps only a weak reference to a task
        task.add_done_callback(self._tasks.discard)

    async def analyse(self, results: RaceResults) -> RaceAnalysis:
        """The analysis of ``results``: the solver's, or unknown past its time bound."""
        per_racer = self.solver.solving.analysis
        seconds = per_racer * (len(results.logs) + 1)
        winners = [standing.player for standing in results.standings if standing.won]
        found = await self.solver.run(
            seconds, analyse_in_worker, results.variant, results.seed, results.deal_version,
            dict(results.logs), winners, results.line, per_racer,
        )  # fmt: skip
        if found is None:
            return unknown_analysis(results)
        return RaceAnalysis.from_data(found)

    async def _analyse(self, race: str, results: RaceResults) -> None:
        try:
            analysis = await self.analyse(results)
            done = dataclasses.replace(results, analysis=analysis)
            await self.store.results.record_analysis(race, done)
        except Exception:
            log.exception("the analysis of race %s failed", race)

    async def close(self) -> None:
        """Stop the analyses under way (their races' results stand without one)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
