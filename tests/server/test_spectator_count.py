"""How many watch a race: each node's count in Redis, the totals, and the ``spectators`` push."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    RaceInfo,
    Resign,
    Spectate,
    SpectatePolicy,
    Spectating,
    Spectators,
    StartRace,
)
from server.fanout.spectators import Saying, SpectatorCounts, SpectatorTally
from server.settings import Limits
from server.storage import keys
from server.storage.spectators import SpectatorStore
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, NodeFactory, ProcessFactory

# -- the tally, without I/O -------------------------------------------------


def test_counts_are_written_when_they_change_and_all_again_when_a_refresh_is_due() -> None:
    """A count is written when it changes, a race left by all as 0, and every count again
    once ``refresh`` seconds passed since the last refresh."""
    tally: SpectatorTally[str] = SpectatorTally(refresh=3.0)
    first = tally.to_say({"r1": 2, "r2": 1}, now=100.0)
    assert first == Saying({"r1": 2, "r2": 1}, refresh=True)
    tally.said(first, now=100.0)
    assert tally.to_say({"r1": 2, "r2": 1}, now=101.0).counts == {}
    changed = tally.to_say({"r1": 3}, now=101.0)
    assert changed == Saying({"r1": 3, "r2": 0}, refresh=False)
    tally.said(changed, now=101.0)
    assert tally.to_say({"r1": 3}, now=102.0).counts == {}
    assert tally.to_say({"r1": 3}, now=103.0) == Saying({"r1": 3}, refresh=True)


def test_a_count_not_written_is_written_again() -> None:
    """A write that failed (never said) leaves the change to be written at the next sweep."""
    tally: SpectatorTally[str] = SpectatorTally(refresh=3.0)
    tally.said(tally.to_say({"r1": 1}, now=0.0), now=0.0)
    tally.to_say({"r1": 2}, now=1.0)  # Redis was away: not said
    assert tally.to_say({"r1": 2}, now=1.5).counts == {"r1": 2}


def test_everyone_hears_a_new_total_and_newcomers_hear_an_old_one() -> None:
    """A changed total goes to every spectator here; an unchanged one only to those who
    came since; a total never reads below the spectators here."""
    tally: SpectatorTally[str] = SpectatorTally(refresh=3.0)
    told = tally.to_tell({"r1": 2}, {"r1": ["a"]}, now=0.0)
    assert [(t.race, t.total, t.spectators) for t in told] == [("r1", 2, ["a"])]
    assert tally.to_tell({"r1": 2}, {"r1": ["a"]}, now=0.0) == []
    # b came and c went on another node: the total is the same, only b hears it.
    told = tally.to_tell({"r1": 2}, {"r1": ["a", "b"]}, now=0.0)
    assert [(t.total, t.spectators) for t in told] == [(2, ["b"])]
    told = tally.to_tell({"r1": 5}, {"r1": ["a", "b"]}, now=0.0)
    assert [(t.total, t.spectators) for t in told] == [(5, ["a", "b"])]
    told = tally.to_tell({"r1": 0}, {"r1": ["a", "b"]}, now=0.0)  # a read that missed our write
    assert [(t.total, t.spectators) for t in told] == [(2, ["a", "b"])]


def test_a_crowd_hears_a_changing_total_once_per_calm_period() -> None:
    """Over ``crowd`` spectators here, a new total waits until ``calm`` seconds after the
    last one told; a newcomer meanwhile hears the total told last."""
    tally: SpectatorTally[str] = SpectatorTally(refresh=3.0, crowd=2, calm=5.0)
    crowd = ["a", "b", "c"]
    assert [t.total for t in tally.to_tell({"r1": 3}, {"r1": crowd}, now=10.0)] == [3]
    assert tally.to_tell({"r1": 9}, {"r1": crowd}, now=12.0) == []
    told = tally.to_tell({"r1": 9}, {"r1": [*crowd, "d"]}, now=13.0)
    assert [(t.total, t.spectators) for t in told] == [(3, ["d"])]
    told = tally.to_tell({"r1": 9}, {"r1": [*crowd, "d"]}, now=15.0)
    assert [(t.total, t.spectators) for t in told] == [(9, [*crowd, "d"])]
    # A race of few spectators hears every change at once.
    few: SpectatorTally[str] = SpectatorTally(refresh=3.0, crowd=2, calm=5.0)
    few.to_tell({"r1": 1}, {"r1": ["a"]}, now=10.0)
    assert [t.total for t in few.to_tell({"r1": 7}, {"r1": ["a"]}, now=10.5)] == [7]


def test_a_race_watched_again_is_told_afresh() -> None:
    """A race nobody here watches any more is forgotten: its next spectator hears the total."""
    tally: SpectatorTally[str] = SpectatorTally(refresh=3.0)
    tally.to_tell({"r1": 1}, {"r1": ["a"]}, now=0.0)
    assert tally.to_tell({}, {}, now=0.0) == []
    told = tally.to_tell({"r1": 1}, {"r1": ["a"]}, now=0.0)
    assert [(t.total, t.spectators) for t in told] == [(1, ["a"])]


# -- Redis -----------------------------------------------------------------


async def test_totals_sum_the_nodes_still_vouched_for(store: Store) -> None:
    """Two nodes' counts add up; a node past its time (a dead one) and a count taken out (0)
    do not; a node's hash expires on its own, and a node gone is forgotten by a read."""
    counts = SpectatorStore(store.redis)
    await counts.say("n1", {"r1": 2, "r2": 1}, until=1000.0, keep=60.0)
    await counts.say("n2", {"r1": 3}, until=2000.0, keep=60.0)
    assert await counts.totals(["r1", "r2", "r3"], now=500.0) == {"r1": 5, "r2": 1, "r3": 0}
    await counts.say("n2", {"r1": 0, "r3": 4}, until=2000.0, keep=60.0)
    assert await counts.totals(["r1", "r3"], now=500.0) == {"r1": 2, "r3": 4}
    assert 0 < await store.redis.pttl(keys.spectators_on("n1")) <= 60_000
    assert await counts.totals(["r1", "r2", "r3"], now=1500.0) == {"r1": 0, "r2": 0, "r3": 4}
    assert await store.redis.zrange(keys.SPECTATOR_NODES, 0, -1) == [b"n2"]


async def test_a_count_that_is_not_a_number_counts_nothing(store: Store) -> None:
    """A field whose value is not a count (written by something else) adds nothing."""
    counts = SpectatorStore(store.redis)
    await counts.say("n1", {"r1": 2}, until=1000.0, keep=60.0)
    await store.redis.hset(keys.spectators_on("n1"), "r2", "many")
    assert await counts.totals(["r1", "r2"], now=500.0) == {"r1": 2, "r2": 0}


class _Spectator:
    """A spectator that takes a while to be written to (a socket write, tens of µs)."""

    def __init__(self, told: list[bytes]) -> None:
        self.told = told
        self.aside: bytes | None = None

    def notice(self, frame: bytes) -> None:
        time.sleep(0.00005)
        self.told.append(frame)

    def notice_with_next(self, frame: bytes) -> None:
        self.aside = frame

    def send_aside(self) -> None:
        frame, self.aside = self.aside, None
        if frame is not None:
            self.notice(frame)


async def test_a_crowds_total_waits_for_a_board_a_while(store: Store) -> None:
    """A crowd's new total is kept aside for each of its spectators, not written; a sweep
    ``ASIDE`` seconds later writes it to those that no board took it along to. A race
    with few spectators hears its total at once."""
    told: list[bytes] = []
    crowd = [_Spectator(told) for _ in range(150)]
    few = [_Spectator([]) for _ in range(3)]
    counts = SpectatorCounts(SpectatorStore(store.redis), "n1", vouch=30.0)
    now = time.time()
    await counts.sweep({"r1": crowd, "r2": few}, now)
    assert told == [] and all(s.aside is not None for s in crowd)
    assert all(len(s.told) == 1 and s.aside is None for s in few)
    crowd[0].aside = None  # a board took it along
    await counts.sweep({"r1": crowd, "r2": few}, now + counts.ASIDE / 2)
    assert told == []
    await counts.sweep({"r1": crowd, "r2": few}, now + counts.ASIDE)
    assert len(told) == 149 and all(s.aside is None for s in crowd)


async def test_a_crowd_hears_its_total_a_few_milliseconds_per_turn(store: Store) -> None:
    """Telling 2,000 spectators (about 0.1 s of writes) leaves the loop to the others
    every few milliseconds: a callback due meanwhile runs before the last is told, after
    no more than a budget of writes; all of them hear the total once (at the sweep after
    it was kept aside for a board that did not come)."""
    told: list[bytes] = []
    crowd = [_Spectator(told) for _ in range(2000)]
    counts = SpectatorCounts(SpectatorStore(store.redis), "n1", vouch=30.0)
    heard_before: list[int] = []
    ticking = True

    def tick() -> None:
        if ticking:
            heard_before.append(len(told))
            asyncio.get_running_loop().call_soon(tick)

    now = time.time()
    await counts.sweep({"r1": crowd}, now)
    asyncio.get_running_loop().call_soon(tick)
    await counts.sweep({"r1": crowd}, now + counts.ASIDE)
    ticking = False
    assert len(told) == 2000 and len(set(told)) == 1
    during = [n for n in heard_before if 0 < n < 2000]
    assert len(during) >= 5  # the loop ran between slices, not once after all of them
    assert max(b - a for a, b in itertools.pairwise(heard_before)) <= 400  # ~a budget a turn


# -- nodes -----------------------------------------------------------------


async def _live_race(url: str) -> tuple[ClientSession, str]:
    """A live race started by its one racer, "Ann"."""
    ann = await ClientSession.connect(url, "Ann")
    created = await ann.request(
        CreateRace(
            variant="royal-cotillion", max_players=1, time_limit=600, spectate=SpectatePolicy.LIVE
        ),
        RaceInfo,
    )
    await ann.request(StartRace(race=created.race.id), RaceInfo)
    return ann, created.race.id


async def _watch(url: str, race: str, name: str) -> ClientSession:
    watcher = await ClientSession.connect(url, name)
    await watcher.request(Spectate(race=race), Spectating)
    return watcher


async def _counted(watcher: ClientSession, race: str, count: int, wait: float = TIMEOUT) -> None:
    await watcher.next(Spectators, lambda m: m.race == race and m.count == count, timeout=wait)


async def test_spectators_on_two_nodes_hear_how_many_watch(make_node: NodeFactory) -> None:
    """A spectator hears 1; with a second on another node both hear 2; when it goes, 1.
    The racer hears no count."""
    async with make_node() as first, make_node() as second:
        ann, race = await _live_race(first)
        try:
            one = await _watch(first, race, "One")
            await _counted(one, race, 1)
            two = await _watch(second, race, "Two")
            await _counted(two, race, 2)
            await _counted(one, race, 2)
            await two.close()
            await _counted(one, race, 1)
            await one.close()
            assert not [m for m in ann.received if isinstance(m, Spectators)]
        finally:
            await ann.close()


@pytest.mark.slow
async def test_a_crowd_hears_its_count_with_no_board_to_ride(make_node: NodeFactory) -> None:
    """A crowd's count waits for the race's next board; with no move to bring one, every
    spectator still hears the whole crowd's count on its own soon after."""
    crowd = SpectatorTally[object](refresh=1.0).crowd + 1
    limits = Limits(rate=10_000, burst=10_000, connections_per_address=crowd + 8)
    async with make_node(limits=limits) as url:
        ann, race = await _live_race(url)
        watchers: list[ClientSession] = []
        try:
            for i in range(crowd):
                watchers.append(await _watch(url, race, f"W{i}"))
            # The crowd hears a new total at most every 5 s, then waits up to 2 s for a board.
            wait = TIMEOUT + SpectatorTally[object](refresh=1.0).calm + SpectatorCounts.ASIDE
            await asyncio.gather(*(_counted(w, race, crowd, wait=wait) for w in watchers))
        finally:
            await asyncio.gather(*(w.close() for w in watchers))
            await ann.close()


@pytest.mark.slow
async def test_a_dead_nodes_spectators_stop_counting(node_processes: ProcessFactory) -> None:
    """A node killed with its spectators (no goodbye to Redis): the other node's spectator
    hears the count drop once the dead node's vouching ran out."""
    alive, doomed = await asyncio.to_thread(node_processes, 2)
    ann, race = await _live_race(alive.url)
    try:
        here = await _watch(alive.url, race, "Here")
        there = [await _watch(doomed.url, race, f"There {i}") for i in range(2)]
        await _counted(here, race, 3)
        await asyncio.to_thread(doomed.kill)
        for session in there:
            session.ws.transport.abort()
        # The dead node vouched for its count for timeouts.unheard (5 s) at most.
        await _counted(here, race, 1, wait=2 * TIMEOUT)
        await here.close()
    finally:
        await ann.close()


async def test_a_spectator_who_comes_after_a_resignation_sees_it(make_node: NodeFactory) -> None:
    """Ann resigned before Cy came to watch: the boards Cy is given say so (the watching
    page stops her clock and says "resigned" from them)."""
    async with make_node() as url:
        ann = await ClientSession.connect(url, "Ann")
        bob = await ClientSession.connect(url, "Bob")
        try:
            created = await ann.request(
                CreateRace(
                    variant="royal-cotillion", max_players=2, time_limit=600,
                    spectate=SpectatePolicy.LIVE,
                ),
                RaceInfo,
            )  # fmt: skip
            race = created.race.id
            await bob.request(JoinRace(race=race), RaceInfo)
            await ann.request(StartRace(race=race), RaceInfo)
            await ann.request(Resign(race=race), RaceInfo)
            cy = await ClientSession.connect(url, "Cy")
            watched = await cy.request(Spectate(race=race), Spectating)
            assert watched.boards[ann.player].progress.resigned
            assert not watched.boards[bob.player].progress.resigned
            await cy.close()
        finally:
            await ann.close()
            await bob.close()
