"""The solver works in the background: it yields the CPU to races, and its queue is bounded."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

from server.rules.results import RaceResults
from server.services.analysis import Analyst
from server.services.solving import NICENESS, Priority, SolverPool
from server.settings import Solving
from server.storage.store import Store
from tests.processes import ROOT
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


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle scheduling class")
async def test_analyses_run_only_on_cpu_the_races_leave(store: Store) -> None:
    """Niced, the analyses of races closed back to back still took 0.10-0.15 of the node's
    pinned core in the peers bench. Nobody waits for them: their workers are in the idle
    class, which runs only when nothing else wants the CPU; a hint's stay niced."""
    pool = SolverPool(Solving(workers=1))
    analyst = Analyst(store, pool)
    try:
        await analyst.analyse(RaceResults((), 7, "c", 1, "quadrille", {}))
        analysts = {os.sched_getscheduler(p.pid or 0) for p in multiprocessing.active_children()}
        hint = await pool.run(TIMEOUT, os.sched_getscheduler, 0)
    finally:
        await analyst.close()
        await pool.close()
    assert analysts == {os.SCHED_IDLE}
    assert hint == os.SCHED_OTHER


def _scheduling(pid: int) -> tuple[int, int]:
    """A process's scheduling policy and niceness, read however young it is."""
    return os.sched_getscheduler(pid), os.getpriority(os.PRIO_PROCESS, pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux schedules threads")
@pytest.mark.parametrize(
    ("priority", "expected"),
    [(Priority.IDLE, (os.SCHED_IDLE, os.nice(0))), (Priority.WAITED, (os.SCHED_OTHER, None))],
)
async def test_a_worker_is_born_at_its_priority(
    priority: Priority, expected: tuple[int, int | None]
) -> None:
    """A worker spent its start (a fresh interpreter importing the engine: 0.1-0.2 s of
    CPU) at the node's own priority, and lowered it only at its first act: in the peers
    bench's window that took 0.13 of the node's pinned core. Started from a thread at
    the job's priority, it is born there."""
    policy, niceness = expected
    if niceness is None:
        niceness = min(19, os.nice(0) + NICENESS)
    pool = SolverPool(Solving(workers=1))
    before = set(multiprocessing.active_children())
    job = asyncio.ensure_future(pool.run(TIMEOUT, os.getpid, priority=priority))
    try:
        deadline = time.monotonic() + TIMEOUT
        born = set(multiprocessing.active_children()) - before
        while not born and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
            born = set(multiprocessing.active_children()) - before
        (worker,) = born
        assert worker.pid is not None
        assert _scheduling(worker.pid) == (policy, niceness)  # still importing, most likely
        assert await job == worker.pid
        assert _scheduling(worker.pid) == (policy, niceness)
    finally:
        await pool.close()


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


POOL_USER = """
import asyncio, os, sys
from server.services.solving import SolverPool
from server.settings import Solving

async def main() -> None:
    pool = SolverPool(Solving(workers=1))
    print(await pool.run(60, os.getpid), flush=True)  # the worker's pid
    await asyncio.sleep(3600)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_a_node_killed_outright_leaves_no_solver_worker_behind() -> None:
    """SIGKILL closes nothing: the kill tests once left forty workers (and their fork
    servers) running, 3.5 GiB in all. A worker watches its node and ends with it."""
    node = subprocess.Popen(
        [sys.executable, "-c", POOL_USER], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        assert node.stdout is not None
        worker = int(node.stdout.readline())
        assert _alive(worker)
    finally:
        node.kill()
        node.wait()
    deadline = time.monotonic() + TIMEOUT
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(worker), f"worker {worker} outlived its node"
