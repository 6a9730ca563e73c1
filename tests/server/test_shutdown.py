"""A node's background loops stop when told, even if a Redis call swallowed the cancellation.

redis-py has more than once turned a task's cancellation into a connection
error, or dropped it, when the cancel landed while a command waited on a
dying connection (redis-py issues #2028, #2551). A ``ballroom serve`` once
hung on stopping while its embedded Redis died with it (one signal to the
process group reaches both); its log fits a health probe that kept running
after ``close`` had cancelled it. Not reproduced since; each loop now also
stops on a flag its ``close`` or ``stop`` sets, and these tests play the
swallowed cancellation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any

from server.fanout.hub import Hub
from server.net.node import Node
from server.settings import Settings, Timeouts
from server.storage.health import StorageHealth
from server.storage.store import Store
from tests.server.conftest import TIMEOUT


async def _ends(closing: Coroutine[Any, Any, None]) -> bool:
    """Whether ``closing`` finishes within the test timeout (not cancelled on it)."""
    task = asyncio.ensure_future(closing)
    done, _ = await asyncio.wait({task}, timeout=TIMEOUT)
    if not done:
        task.cancel()
    return bool(done)


class Swallowing:
    """A Redis call whose first run, cancelled while it waits, returns anyway.

    Later runs answer at once, so that without the stop flag a loop goes on
    and the test fails on its timeout instead of hanging.
    """

    def __init__(self, result: object) -> None:
        self.result = result
        self.started = asyncio.Event()

    async def __call__(self) -> object:
        if not self.started.is_set():
            self.started.set()
            with contextlib.suppress(asyncio.CancelledError):  # what a buggy library may do
                await asyncio.Event().wait()  # a reply that never comes
        return self.result


async def test_the_health_probe_stops_even_if_a_probe_swallows_the_cancel(
    redis_url: str,
) -> None:
    changes: list[bool] = []

    async def changed(up: bool, restarted: bool) -> None:
        changes.append(up)

    health = StorageHealth(redis_url, changed, interval=0.01)
    await health.start()
    probe = Swallowing(None)
    health.probe = probe  # type: ignore[assignment]
    await asyncio.wait_for(probe.started.wait(), TIMEOUT)
    assert await _ends(health.close())
    assert changes == [False]  # the swallowed probe counted as Redis down, then it stopped


async def test_the_event_feed_stops_reconnecting_even_if_a_resubscribe_swallows_the_cancel(
    store: Store,
) -> None:
    hub = Hub(store)
    await hub.start()
    resubscribe = Swallowing(False)
    hub._resubscribe = resubscribe  # type: ignore[assignment]
    hub._feed_lost(ConnectionError("redis went away"))
    await asyncio.wait_for(resubscribe.started.wait(), TIMEOUT)
    assert await _ends(hub.close())
    hub._feed_lost(ConnectionError("closed after close"))  # no reconnecting after close
    assert hub._reconnecting is not None and hub._reconnecting.done()


async def test_the_sweeper_stops_even_if_a_sweep_swallows_the_cancel(
    store: Store, redis_url: str
) -> None:
    node = Node(Settings(redis_url=redis_url, timeouts=Timeouts(sweep=0.01)), store)
    await node.start()
    sweep = Swallowing(None)
    node.races.results.sweep = sweep  # type: ignore[assignment]
    await asyncio.wait_for(sweep.started.wait(), TIMEOUT)
    assert await _ends(node.stop())
