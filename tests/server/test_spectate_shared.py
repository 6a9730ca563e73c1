"""Live spectators who join a race at once share one replay of its events.

A replay is a read of the race's whole stream and every move applied again: a
crowd joining a watched race must not each pay it while the first is still
being built. The count comes from a thin wrapper on the node's Boards' store
that counts reads from the start of a race's stream (one per replay).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from protocol.messages import (
    CreateRace,
    JoinRace,
    RaceInfo,
    RaceStarted,
    Spectate,
    SpectatePolicy,
    Spectating,
    StartRace,
)
from server.services.boards import Boards
from server.storage.events import StoredEvent
from server.storage.exceptions import StoreUnavailable
from tests.server.conftest import NODES, TIMEOUT, Clients, NodeFactory

pytestmark = pytest.mark.slow

JOINERS = 24


class _Events:
    """The store's events, counting replays (reads from a stream's start); the first
    may be made to fail once ``fail`` is set, after waiting for ``release``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.replays = 0
        self.fail = False
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def since(self, topic: str, since: int, limit: int = 10_000) -> list[StoredEvent]:
        if since == 0:
            self.replays += 1
            if self.fail:
                self.fail = False
                self.entered.set()
                await self.release.wait()
                raise StoreUnavailable("the first replay's read fails")
        events: list[StoredEvent] = await self.inner.since(topic, since, limit)
        return events

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _Store:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.events = _Events(inner.events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _Memory:
    """The node's race memory, saying when ``expected`` lookups of a started race
    are done: after it, a spectator's path to the build is synchronous."""

    def __init__(self, inner: Any, expected: int) -> None:
        self.inner = inner
        self.expected = expected
        self.looked_up = 0
        self.all_looked_up = asyncio.Event()

    async def started(self, race: str) -> Any:
        started = await self.inner.started(race)
        self.looked_up += 1
        if self.looked_up >= self.expected:
            self.all_looked_up.set()
        return started

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class _Counted:
    """An object whose methods named in ``names`` count their calls in ``counts``."""

    def __init__(self, inner: Any, counts: Counter[str], names: set[str]) -> None:
        self.inner, self.counts, self.names = inner, counts, names

    def __getattr__(self, name: str) -> Any:
        method = getattr(self.inner, name)
        if name not in self.names:
            return method

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.counts[name] += 1
            return method(*args, **kwargs)

        return counted


class _ReadCounting:
    """A store counting its reads of races' records and of their streams."""

    def __init__(self, inner: Any, counts: Counter[str]) -> None:
        self.inner = inner
        self.races = _Counted(inner.races, counts, {"meta", "metas_and_players"})
        self.events = _Counted(inner.events, counts, {"before", "since", "count"})

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def _running_race(url: str, clients: Clients) -> str:
    alice = await clients.hello(url, "Alice")
    bob = await clients.hello(url, "Bob")
    created = await alice.request(
        CreateRace(variant="royal-cotillion", max_players=2, time_limit=600,
                   spectate=SpectatePolicy("live"), deal=4711),
        RaceInfo,
    )  # fmt: skip
    race = created.race.id
    await bob.request(JoinRace(race=race), RaceInfo)
    await alice.request(StartRace(race=race), RaceInfo)
    await alice.next(RaceStarted, timeout=TIMEOUT)
    return race


def _counting(boards: Boards, monkeypatch: pytest.MonkeyPatch) -> _Events:
    store = _Store(boards.store)
    monkeypatch.setattr(boards, "store", store)
    return store.events


async def test_live_joiners_at_once_share_one_build(
    make_node: NodeFactory, clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spectators joining a live race at once: one replay (not one each), the same boards."""
    async with make_node() as url:
        race = await _running_race(url, clients)
        boards = NODES[url].services.boards
        events = _counting(boards, monkeypatch)
        watchers = [await clients.hello(url, f"Watcher{i}") for i in range(JOINERS)]
        replies = await asyncio.gather(
            *(w.request(Spectate(race=race), Spectating) for w in watchers)
        )
        assert events.replays == 1, f"{events.replays} replays for {JOINERS} joiners"
        first = replies[0]
        assert first.boards and first.layout is not None
        assert all((r.boards, r.event, r.layout) == (first.boards, first.event, first.layout)
                   for r in replies)  # fmt: skip
        assert not getattr(boards, "_building", {})  # nothing left in flight


async def test_a_failed_build_leaves_its_waiters_to_build_their_own(
    make_node: NodeFactory, clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build the joiners wait on fails: its builder hears why, each waiter builds its
    own and gets the boards, and nothing is left in flight."""
    async with make_node() as url:
        race = await _running_race(url, clients)
        boards = NODES[url].services.boards
        events = _counting(boards, monkeypatch)
        waiters = 4
        memory = _Memory(boards.memory, expected=1 + waiters)
        monkeypatch.setattr(boards, "memory", memory)
        events.fail = True
        builder = asyncio.ensure_future(boards.spectator_snapshot(race, None))
        async with asyncio.timeout(TIMEOUT):
            await events.entered.wait()
        joiners = [
            asyncio.ensure_future(boards.spectator_snapshot(race, None)) for _ in range(waiters)
        ]
        async with asyncio.timeout(TIMEOUT):
            await memory.all_looked_up.wait()  # each joiner waits on the build by now
        assert events.replays == 1
        events.release.set()
        with pytest.raises(StoreUnavailable):
            await builder
        async with asyncio.timeout(TIMEOUT):
            got = await asyncio.gather(*joiners)
        assert all(s.boards and s.boards == got[0].boards for s in got)
        assert not getattr(boards, "_building", {})


async def test_joiners_of_a_race_passed_on_here_read_only_its_record(
    make_node: NodeFactory, clients: Clients, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node that passes a race's events on to its racers knows the newest: a spectator
    joining reads the race's record once (its tournament check shares it) and nothing of
    its stream, the snapshot kept from the first joiner being of that newest event."""
    async with make_node() as url:
        race = await _running_race(url, clients)  # the racers follow it here
        services = NODES[url].services
        first = await clients.hello(url, "First")
        kept = await first.request(Spectate(race=race), Spectating)
        counts: Counter[str] = Counter()
        for service in (services.boards, services.lobby):
            monkeypatch.setattr(service, "store", _ReadCounting(service.store, counts))
        for i in range(JOINERS // 4):
            watcher = await clients.hello(url, f"Watcher{i}")
            reply = await watcher.request(Spectate(race=race), Spectating)
            assert (reply.boards, reply.event, reply.layout) == (
                kept.boards,
                kept.event,
                kept.layout,
            )
        assert counts == {"metas_and_players": JOINERS // 4}, counts
