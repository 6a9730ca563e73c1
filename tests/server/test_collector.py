"""The crowd collector: full passes skip what survived the last, and cycles are freed
once the crowd turned over (server/collector.py).

These tests drive the real collector of this process with ``gc.collect()``;
each installs a :class:`CrowdCollector` and uninstalls it (which thaws
everything) before it ends, so other tests see the collector as Python
leaves it.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from client.session import ClientSession
from protocol.messages import CreateRace, RaceInfo, Spectate, Spectating
from server.collector import CrowdCollector, thaw_due, thresholds
from tests.server.conftest import NODES, NodeFactory
from tests.server.faults import eventually


class Counts:
    """What the node would say: its open connections, and how many ended."""

    def __init__(self) -> None:
        self.live = 0
        self.closed = 0


class Cyclic:
    """An object in a reference cycle with itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def counts() -> Iterator[Counts]:
    yield Counts()


@pytest.fixture
def collector(counts: Counts) -> Iterator[CrowdCollector]:
    crowd = CrowdCollector(lambda: counts.live, lambda: counts.closed, minimum=10, every=3600.0)
    crowd.install()
    try:
        yield crowd
    finally:
        crowd.uninstall()


def test_a_thaw_is_due_once_more_connections_closed_than_are_open_or_the_interval_passed() -> None:
    assert not thaw_due(closed=50, live=100, elapsed=1.0, minimum=10, every=600.0)
    assert thaw_due(closed=101, live=100, elapsed=1.0, minimum=10, every=600.0)
    assert not thaw_due(closed=9, live=0, elapsed=1.0, minimum=10, every=600.0)  # a quiet node
    assert thaw_due(closed=0, live=100, elapsed=600.0, minimum=10, every=600.0)


def test_what_survives_a_full_pass_is_frozen_out_of_the_next(collector: CrowdCollector) -> None:
    kept = [Cyclic() for _ in range(1_000)]
    gc.collect()
    frozen = gc.get_freeze_count()
    assert frozen >= len(kept)
    assert all(gc.is_tracked(each) for each in kept)
    gc.collect()
    assert gc.get_freeze_count() >= frozen  # still frozen, and nothing thawed
    assert collector.thaws == 0


def test_a_cycle_left_frozen_is_freed_after_the_thaw_the_crowd_turning_over_calls_for(
    collector: CrowdCollector, counts: Counts
) -> None:
    dead = Cyclic()
    alive = weakref.ref(dead)
    gc.collect()  # it survives, and is frozen
    del dead
    gc.collect()
    assert alive() is not None  # frozen: the full pass did not walk it
    counts.live, counts.closed = 5, 11  # more closed than the minimum and than open
    gc.collect()  # the pass after which the thaw comes
    assert collector.thaws == 1
    gc.collect()  # this one walks everything
    assert alive() is None
    assert gc.get_freeze_count() > 0  # and froze again what survived it


def test_an_object_freed_by_its_last_reference_goes_at_once_though_frozen(
    collector: CrowdCollector,
) -> None:
    inner = Counts()
    watched = weakref.ref(inner)
    gc.collect()  # it survives, and is frozen
    assert gc.get_freeze_count() > 0
    del inner
    assert watched() is None


def test_uninstalling_thaws_everything_and_restores_the_thresholds(counts: Counts) -> None:
    before = gc.get_threshold()
    crowd = CrowdCollector(lambda: counts.live, lambda: counts.closed)
    crowd.install()
    gc.collect()
    crowd.uninstall()
    assert gc.get_freeze_count() == 0
    assert crowd._after_pass not in gc.callbacks
    assert gc.get_threshold() == before


def test_passes_come_more_often_while_a_crowd_is_connected() -> None:
    """Young passes every 2,000 allocations and full ones every 10 middle ones without a
    crowd; every 700, and every 2, with one."""
    assert thresholds(0, crowd=2_000) == CrowdCollector.THRESHOLDS == (2_000, 10, 10)
    assert thresholds(1_999, crowd=2_000) == (2_000, 10, 10)
    assert thresholds(2_000, crowd=2_000) == CrowdCollector.CROWD_THRESHOLDS == (700, 10, 2)


def test_the_thresholds_follow_the_crowd(counts: Counts) -> None:
    crowd = CrowdCollector(lambda: counts.live, lambda: counts.closed, crowd=10)
    crowd.install()
    try:
        assert gc.get_threshold() == CrowdCollector.THRESHOLDS
        counts.live = 10  # a crowd came: the next pass past the young one says so
        gc.collect(1)
        assert gc.get_threshold() == CrowdCollector.CROWD_THRESHOLDS
        counts.live = 3
        gc.collect(1)
        assert gc.get_threshold() == CrowdCollector.THRESHOLDS
    finally:
        crowd.uninstall()


async def test_a_closed_connection_is_freed_without_the_collector(make_node: NodeFactory) -> None:
    """Its objects go when their last reference does, not in a full pass: frozen, they
    would otherwise wait for a thaw. (Only asyncio's transport and its socket are
    left in a cycle, which is asyncio's own.)"""
    async with make_node() as url:
        alice = await ClientSession.connect(url, "Alice")
        created = await alice.request(
            CreateRace(variant="gavotte", max_players=2, time_limit=600), RaceInfo
        )
        carol = await ClientSession.connect(url, "Carol")
        await carol.request(Spectate(race=created.race.id), Spectating)
        (conn,) = [c for c in NODES[url].connections if c.player == carol.player]
        watch = conn.watches[created.race.id]
        left = weakref.ref(conn), weakref.ref(watch)
        del conn, watch
        gc.disable()
        try:
            await carol.close()
            await eventually(
                lambda: all(ref() is None for ref in left), "the connection is freed at once"
            )
        finally:
            gc.enable()
