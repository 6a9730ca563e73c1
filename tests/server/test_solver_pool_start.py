"""A node's solver pool starts its workers without stopping the node's event loop."""

from __future__ import annotations

import asyncio
import operator
import time

from server.services.solving import SolverPool
from server.settings import Solving
from tests.server.conftest import TIMEOUT


async def test_the_first_solve_leaves_the_event_loop_free() -> None:
    """The first job starts the workers, which waits on the forkserver while it imports the
    engine (seconds on a busy machine): that wait is off the loop, so every other client of
    the node is served meanwhile (bench/events.py saw rounds held up 6 s by it)."""
    pool = SolverPool(Solving(workers=1))
    pool.start()
    worst = 0.0
    done = asyncio.Event()

    async def beat() -> None:
        nonlocal worst
        while not done.is_set():
            began = time.perf_counter()
            await asyncio.sleep(0.005)
            worst = max(worst, time.perf_counter() - began - 0.005)

    beating = asyncio.create_task(beat())
    await asyncio.sleep(0.02)
    try:
        began = time.perf_counter()
        assert await pool.run(TIMEOUT, operator.add, 1, 2) == 3
        took = time.perf_counter() - began
    finally:
        done.set()
        await beating
        await pool.close()
    assert worst < max(0.25, took / 2), f"the loop stood still {worst:.2f} s of {took:.2f} s"
