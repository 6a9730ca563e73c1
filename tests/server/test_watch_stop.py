"""A watch stopped at once: the work it had just begun is dropped without a trace.

``RaceWatch.stop`` cancels the watch's tasks. One cancelled before its first
step never started the work it wrapped, and Python warned, whenever that
coroutine was collected, that it "was never awaited" (seen in the fuzz test's
run). The watch is driven with a stand-in connection: what matters is the
order of a spawn and a stop within one turn of the loop, which no real client
can set.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, cast

from server.fanout.feeds import RaceWatch, Role

RACE = "r1"


class _Client:
    """A connection as the watch sees it here: who it is and its watches."""

    def __init__(self) -> None:
        self.player = "p1"
        self.watches: dict[str, object] = {}


async def test_work_stopped_before_it_began_is_closed() -> None:
    """Spawned, then stopped in the same turn: the work's coroutine ends closed."""
    watch = RaceWatch(
        cast(Any, _Client()), RACE, Role.SPECTATOR, 0,
        lobby=cast(Any, None), boards=cast(Any, None), memory=cast(Any, None),
    )  # fmt: skip
    began = asyncio.Event()

    async def work() -> None:
        began.set()

    pending = work()
    task = watch._spawn(pending)
    watch.stop()
    await asyncio.wait([task])
    assert task.cancelled() and not began.is_set()
    assert inspect.getcoroutinestate(pending) == inspect.CORO_CLOSED
