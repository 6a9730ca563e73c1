"""The solver works in the background: it yields the CPU to races, and its queue is bounded."""

from __future__ import annotations

import logging
import os

import pytest

from server.rules.results import RaceResults
from server.services.analysis import Analyst
from server.services.solving import NICENESS, SolverPool
from server.settings import Solving
from server.storage.store import Store
from tests.server.conftest import TIMEOUT


async def test_solver_workers_run_at_a_lower_priority_than_the_node() -> None:
    """A node that closes races back to back once lost half its core to their analyses
    (the peers bench, server pinned to one core): the workers are niced, so the races'
    own path comes first."""
    pool = SolverPool(Solving(workers=1))
    try:
        worker = await pool.run(TIMEOUT, os.nice, 0)
    finally:
        await pool.close()
    assert worker == min(19, os.nice(0) + NICENESS)


async def test_analyses_waiting_for_the_solver_are_bounded(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Races closing faster than they are analysed (five in one go, with room for two):
    beyond the backlog a race is analysed ``unknown`` at once, so the waiting work (and
    its memory) stops growing."""
    pool = SolverPool(Solving(workers=1, analysis=0.1))
    analyst = Analyst(store, pool, backlog=2)
    try:
        with caplog.at_level(logging.WARNING, logger="server.services.analysis"):
            for seed in range(5):
                analyst.analyse_soon(f"r{seed}", RaceResults((), seed, "c", 1, "quadrille", {}))
        assert analyst.waiting == 2
        given_up = [r for r in caplog.records if "wait already" in r.getMessage()]
        assert len(given_up) == 3
    finally:
        await analyst.close()
        await pool.close()
