"""A racer away past the race's grace period is resigned as "left", once, by any node;
the others see who is away as it happens."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from client.session import ClientSession
from protocol.messages import (
    CreateRace,
    JoinRace,
    Presence,
    Progress,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Resign,
    Resume,
    SpectatePolicy,
    StartRace,
)
from server.rules.events import Resigned
from server.settings import Timeouts
from server.storage.event_codec import decode_event
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients, NodeFactory

pytestmark = pytest.mark.slow

#: Sweeps often, so that a grace of a second ends about a second later.
QUICK = Timeouts(countdown=0.0, sweep=0.05)


async def _race_of_two(
    host: ClientSession, other: ClientSession, grace: int
) -> tuple[str, RaceStarted]:
    created = await host.request(
        CreateRace(
            variant="quadrille",
            max_players=2,
            time_limit=600,
            spectate=SpectatePolicy.LIVE,
            deal=3,
            grace=grace,
        ),
        RaceInfo,
    )
    race: str = created.race.id
    await other.request(JoinRace(code=created.race.code), RaceInfo)
    await host.request(StartRace(race=race), RaceInfo)
    await other.next(RaceStarted)
    return race, await host.next(RaceStarted)


def _is(player: str) -> Callable[[Presence | Progress], bool]:
    return lambda message: message.player == player


async def _resigned_events(store: Store, race: str, player: str) -> list[Resigned]:
    events = [decode_event(payload) for _, payload in await store.events.since(race, 0)]
    return [e for e in events if isinstance(e, Resigned) and e.player == player]


async def test_a_racer_away_past_the_grace_is_resigned_as_left(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Bob's client vanishes: Ann sees him away at once, then resigned as "left"
    after the grace; the results say "left" for him."""
    async with make_node(timeouts=QUICK) as url:
        ann, bob = await clients.hello(url, "Ann"), await clients.hello(url, "Bob")
        race, _ = await _race_of_two(ann, bob, grace=1)
        bob.ws.transport.abort()
        away = await ann.next(Presence, _is(bob.player), timeout=TIMEOUT)
        assert away.away is not None
        left = await ann.next(Progress, _is(bob.player), timeout=TIMEOUT)
        assert left.progress.left and left.progress.resigned
        assert left.progress.moves == 0
        await ann.request(Resign(race=race), RaceInfo)
        results = await ann.next(RaceFinished, timeout=TIMEOUT)
        status = {row.player: row.status for row in results.standings}
        assert status == {ann.player: "resigned", bob.player: "left"}


async def test_a_racer_back_within_the_grace_plays_on(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Bob comes back before the grace ends: Ann sees him away, then back, and his game
    is untouched: nothing is left scheduled against him."""
    async with make_node(timeouts=QUICK) as url:
        ann, bob = await clients.hello(url, "Ann"), await clients.hello(url, "Bob")
        race, _ = await _race_of_two(ann, bob, grace=600)
        assert bob.welcome is not None
        token = bob.welcome.token
        bob.ws.transport.abort()
        assert (await ann.next(Presence, _is(bob.player), timeout=TIMEOUT)).away is not None
        again = await clients.hello(url, "Bob", token=token)
        await again.request(Resume(race=race, since=0), RaceStarted)
        back = await ann.next(Presence, _is(bob.player), timeout=TIMEOUT)
        assert back.away is None
        assert await store.presence.leaving_due(float("inf")) == []
        meta = await store.races.meta(race)
        assert meta is not None and bob.player not in meta.away
        assert await _resigned_events(store, race, bob.player) == []


async def test_two_nodes_resign_a_racer_who_left_exactly_once(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Both nodes' sweepers see Bob's grace run out; one "resigned" event is stored."""
    async with make_node(timeouts=QUICK) as one, make_node(timeouts=QUICK) as two:
        ann, bob = await clients.hello(one, "Ann"), await clients.hello(two, "Bob")
        race, _ = await _race_of_two(ann, bob, grace=1)
        bob.ws.transport.abort()
        await ann.next(Progress, _is(bob.player), timeout=TIMEOUT)
        await ann.request(Resign(race=race), RaceInfo)
        results = await ann.next(RaceFinished, timeout=TIMEOUT)
        assert {row.status for row in results.standings} == {"resigned", "left"}
        assert len(await _resigned_events(store, race, bob.player)) == 1


async def test_a_silent_nodes_racers_count_as_away(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """A node that stops saying who is connected (as if it died) has its racers taken
    for away by the other node, and resigned as "left" after the grace."""
    silent = Timeouts(countdown=0.0, sweep=3600.0)
    watchful = Timeouts(countdown=0.0, sweep=0.05, unheard=0.3)
    async with make_node(timeouts=silent) as dead, make_node(timeouts=watchful) as alive:
        ann, bob = await clients.hello(alive, "Ann"), await clients.hello(dead, "Bob")
        race, _ = await _race_of_two(ann, bob, grace=1)
        away = await ann.next(Presence, _is(bob.player), timeout=TIMEOUT)
        assert away.away is not None
        left = await ann.next(Progress, _is(bob.player), timeout=TIMEOUT)
        assert left.progress.left
        assert len(await _resigned_events(store, race, bob.player)) == 1
