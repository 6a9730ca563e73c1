"""Closing a race: its reads and writes grouped, so a race of two accounts costs a few
round trips to Redis, not one per key (bench/closing_path.py prints the figures)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from redis.asyncio.connection import AbstractConnection

from protocol.messages import CreateRace, SpectatePolicy
from server.services.races import RaceServices
from server.services.records import Records
from server.settings import Settings, Timeouts
from server.storage import keys
from server.storage.players import PlayerStore
from server.storage.store import Store

pytestmark = pytest.mark.slow

#: Round trips closing a rated race of two accounts may take: finish and read the race;
#: its logs; the accounts' skills; mark it pending; store the results and let the race
#: expire; record the accounts; their leaderboards; clear the mark.
MOST_ROUND_TRIPS = 8


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """Counts what redis-py's connections send (a command or a pipeline: one each)."""
    counted = [0]
    send = AbstractConnection.send_packed_command

    async def counting(connection: AbstractConnection, *args: Any, **kwargs: Any) -> None:
        counted[0] += 1
        await send(connection, *args, **kwargs)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", counting)
    yield counted


async def test_closing_a_rated_race_takes_a_few_round_trips(
    store: Store, round_trips: list[int]
) -> None:
    """A rated race of two accounts closes, with its results stored and each account's record
    and leaderboards written, in at most MOST_ROUND_TRIPS round trips (25 before)."""
    settings = Settings(timeouts=Timeouts(countdown=0.0))
    races = RaceServices.build(store, settings, records=Records(PlayerStore(store)))
    races.results.close_soon = lambda race: None  # type: ignore[method-assign]  # closed below
    players = ["uclosing0", "uclosing1"]
    request = CreateRace(
        variant="gavotte", max_players=2, time_limit=600, spectate=SpectatePolicy.AFTER, delay=0
    )
    race = await races.lobby.create(players[0], "Ann", request)
    await races.lobby.join(players[1], "Bob", race)
    await races.lobby.start(players[0], race)
    for player in players:
        await races.moves.resign(player, race)
    # Closed by another node's sweep, say, which knows nothing of the race yet.
    closer = RaceServices.build(store, settings, records=Records(PlayerStore(store)))

    before = round_trips[0]
    assert await closer.results.close_if_done(race)
    assert round_trips[0] - before <= MOST_ROUND_TRIPS

    stored = await races.results.stored_results(race)
    assert stored is not None and set(stored.records) == set(players)
    for player in players:
        assert await store.redis.llen(keys.account_history(player)) == 1
    assert await store.redis.zscore(keys.RECORDS_PENDING, race) is None
    assert await store.redis.ttl(keys.race_players(race)) > 0
    assert not await races.results.close_if_done(race)  # once
