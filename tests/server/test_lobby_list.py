"""The list of races tells the truth: the same for everyone, pushed as it changes,
and never a finished race."""

from __future__ import annotations

import time

import pytest

from protocol.messages import (
    CreateRace,
    JoinRace,
    ListRaces,
    RaceInfo,
    Races,
    Resign,
    SpectatePolicy,
    StartRace,
)
from server.settings import Timeouts
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients, NodeFactory

pytestmark = pytest.mark.slow


def _ids(message: Races) -> list[str]:
    return [str(info.id) for info in message.races]


def _without_id(message: Races) -> bool:
    return message.id is None


async def test_followers_on_two_nodes_get_the_same_list_as_it_changes(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Ann on one node and Bob on another follow the lobby: a new race, then its end,
    reach both as pushed lists, equal to each other."""
    quick = Timeouts(countdown=0.0, sweep=0.05)
    async with make_node(timeouts=quick) as one, make_node(timeouts=quick) as two:
        ann, bob = await clients.hello(one, "Ann"), await clients.hello(two, "Bob")
        for session in (ann, bob):
            assert not (await session.request(ListRaces(follow=True), Races)).races
        created = await ann.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=600, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        race = str(created.race.id)

        def listed(message: Races) -> bool:
            # A push of the list as it was before the race may still be on its way.
            return _without_id(message) and race in _ids(message)

        pushed = [await s.next(Races, listed, TIMEOUT) for s in (ann, bob)]
        assert [_ids(p) for p in pushed] == [[race], [race]]
        assert pushed[0].races == pushed[1].races
        await ann.request(StartRace(race=race), RaceInfo)
        await ann.request(Resign(race=race), RaceInfo)

        def gone(message: Races) -> bool:
            return message.id is None and race not in _ids(message)

        await ann.next(Races, gone, TIMEOUT)
        await bob.next(Races, gone, TIMEOUT)
        assert _ids(await bob.request(ListRaces(), Races)) == []


async def test_a_race_whose_clock_ran_out_is_not_listed_before_it_is_closed(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """No sweeper has closed it yet, but its time is up: it is finished, not running."""
    async with make_node(timeouts=Timeouts(countdown=0.0, sweep=3600.0)) as url:
        ann = await clients.hello(url, "Ann")
        created = await ann.request(
            CreateRace(
                variant="quadrille", max_players=1, time_limit=60, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        race = str(created.race.id)
        await ann.request(StartRace(race=race), RaceInfo)
        assert _ids(await ann.request(ListRaces(), Races)) == [race]
        await store.redis.hset(keys.race_meta(race), "ends_at", time.time() - 1)
        assert _ids(await ann.request(ListRaces(), Races)) == []


async def test_a_joiner_changes_the_list_for_everyone(
    make_node: NodeFactory, clients: Clients
) -> None:
    """Bob joins Ann's race: Cy, following the lobby, sees two players in it."""
    async with make_node(timeouts=Timeouts(countdown=0.0, sweep=0.05)) as url:
        ann, bob, cy = [await clients.hello(url, name) for name in ("Ann", "Bob", "Cy")]
        created = await ann.request(
            CreateRace(
                variant="quadrille", max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER
            ),
            RaceInfo,
        )
        await cy.request(ListRaces(follow=True), Races)
        await bob.request(JoinRace(code=created.race.code), RaceInfo)

        def two_in(message: Races) -> bool:
            return message.id is None and any(len(i.players) == 2 for i in message.races)

        await cy.next(Races, two_in, TIMEOUT)
