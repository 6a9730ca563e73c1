"""The featured race (/tv): the choice rule on typed inputs, and ``featured_race`` on a node."""

from __future__ import annotations

import pytest

from client.session import ClientSession
from protocol.messages import (
    Account,
    CreateRace,
    Featured,
    FeaturedRace,
    JoinRace,
    RaceFinished,
    RaceInfo,
    RaceStarted,
    Register,
    Resign,
    SpectatePolicy,
    StartRace,
)
from server.rules.ratings import Skill
from server.services.tv import Contender, choose_featured
from server.storage import keys
from server.storage.store import Store
from tests.server.conftest import TIMEOUT, Clients, NodeFactory


def _race(
    race: str,
    *,
    tournament: bool = False,
    ratings: tuple[int, ...] = (1500, 1500),
    homes: tuple[int, ...] | None = (4, 4),
    started_at: float = 100.0,
) -> Contender:
    return Contender.of(
        race, tournament=tournament, ratings=ratings, homes=homes, started_at=started_at
    )


def test_no_race_under_way_features_none() -> None:
    """Nothing to choose from: no featured race."""
    assert choose_featured([]) is None


def test_a_tournament_table_comes_before_better_rated_races() -> None:
    """A tournament's table is featured over any other race, however well rated."""
    assert choose_featured([_race("a", ratings=(2400, 2400)), _race("t", tournament=True)]) == "t"


def test_the_top_table_is_the_best_rated_one() -> None:
    """Among a tournament's tables, the one whose racers are rated highest."""
    tables = [
        _race("t-1-2", tournament=True, ratings=(1500, 1610)),
        _race("t-1-1", tournament=True, ratings=(1700, 1650)),
        _race("t-1-3", tournament=True, ratings=(1400, 1450)),
    ]
    assert choose_featured(tables) == "t-1-1"


def test_a_race_comes_before_a_lone_game() -> None:
    """Two racers before one, even when the lone racer is rated higher."""
    assert choose_featured([_race("solo", ratings=(2000,), homes=(9,)), _race("duel")]) == "duel"


def test_the_highest_mean_rating_wins_over_a_closer_race() -> None:
    """Rating first, closeness only between equally rated races."""
    close = _race("close", ratings=(1500, 1500), homes=(3, 3))
    strong = _race("strong", ratings=(1800, 1500), homes=(20, 2))
    assert choose_featured([close, strong]) == "strong"


def test_equal_ratings_go_to_the_closest_race() -> None:
    """Same ratings: the smallest gap in cards home between the first two racers."""
    races = [
        _race("wide", homes=(30, 4)),
        _race("close", homes=(12, 11, 1), ratings=(1500, 1500, 1500)),
        _race("medium", homes=(10, 5)),
    ]
    assert choose_featured(races) == "close"


def test_a_known_gap_comes_before_an_unknown_one() -> None:
    """A delayed race's cards home are not read now: a live race of the same rating goes first."""
    assert choose_featured([_race("delayed", homes=None), _race("live", homes=(20, 2))]) == "live"


def test_equal_races_go_to_the_newest() -> None:
    """Ratings and gaps tie: the race that started last."""
    races = [_race("old", started_at=100.0), _race("new", started_at=200.0), _race("mid")]
    assert choose_featured(races) == "new"


def test_a_full_tie_is_broken_by_the_race_id_whatever_the_order() -> None:
    """Every node picks the same race from the same facts, in any order."""
    races = [_race("b"), _race("c"), _race("a")]
    assert choose_featured(races) == choose_featured(reversed(races)) == "c"


def test_a_contender_reads_its_gap_and_mean_rating() -> None:
    """The gap is between the leader and the runner-up; the rating is the mean."""
    contender = _race("r", ratings=(1400, 1600, 1800), homes=(5, 17, 9))
    assert (contender.gap, contender.rating, contender.racers) == (8, 1600.0, 3)
    assert _race("solo", ratings=(1500,), homes=(7,)).gap == 0
    assert _race("hidden", homes=None).gap is None


async def _running(
    clients: Clients,
    url: str,
    names: tuple[str, ...],
    spectate: SpectatePolicy,
    delay: int = 0,
    *,
    accounts: bool = False,
) -> tuple[str, list[ClientSession]]:
    """A race of ``names`` (the first hosts; registered accounts with ``accounts``), running."""
    racers = [await clients.hello(url, name) for name in names]
    if accounts:
        for racer, name in zip(racers, names, strict=True):
            await racer.request(Register(name=name, password="a long enough password"), Account)
    created = await racers[0].request(
        CreateRace(
            variant="quadrille",
            max_players=len(names),
            time_limit=600,
            spectate=spectate,
            delay=delay,
        ),
        RaceInfo,
    )
    race = str(created.race.id)
    for racer in racers[1:]:
        await racer.request(JoinRace(race=race), RaceInfo)
    await racers[0].request(StartRace(race=race), RaceInfo)
    for racer in racers:
        await racer.next(RaceStarted, timeout=TIMEOUT)
    return race, racers


@pytest.mark.slow
async def test_featured_race_follows_the_races_under_way(
    make_node: NodeFactory, clients: Clients
) -> None:
    """None at first; a live race over a delayed one of equal ratings; never a race watched
    only after it ends, nor the asker's own; the delayed race once the live one ends."""
    async with make_node() as url:
        sam = await clients.hello(url, "Sam")
        assert (await sam.request(FeaturedRace(), Featured)).race is None
        live, (ann, bob) = await _running(clients, url, ("Ann", "Bob"), SpectatePolicy.LIVE)
        delayed, _ = await _running(clients, url, ("Cat", "Dan"), SpectatePolicy.DELAYED, 30)
        await _running(clients, url, ("Eve", "Fay"), SpectatePolicy.AFTER)
        assert (await sam.request(FeaturedRace(), Featured)).race == live
        # A racer is never shown their own race.
        assert (await ann.request(FeaturedRace(), Featured)).race == delayed
        for racer in (ann, bob):
            await racer.request(Resign(race=live), RaceInfo)
        await ann.next(RaceFinished, timeout=TIMEOUT)
        assert (await sam.request(FeaturedRace(), Featured)).race == delayed


@pytest.mark.slow
async def test_a_rating_in_the_races_variant_makes_a_race_featured(
    make_node: NodeFactory, clients: Clients, store: Store
) -> None:
    """Two live races of newcomers: the newer one. Once an account of the older race is rated
    high in another variant, still the newer; rated high in the race's variant, the older."""
    async with make_node() as url:
        sam = await clients.hello(url, "Sam")
        rated, _ = await _running(
            clients, url, ("Vera", "Walt"), SpectatePolicy.LIVE, accounts=True
        )
        vera = next(iter(await store.races.players(rated)))  # her account, the host
        newer, _ = await _running(clients, url, ("Ann", "Bob"), SpectatePolicy.LIVE)
        assert (await sam.request(FeaturedRace(), Featured)).race == newer
        strong = Skill().mu + 3.0
        for variant, featured in (("gavotte", newer), ("quadrille", rated)):
            await store.redis.hset(
                keys.account_stats(vera),
                mapping={f"mu:{variant}": strong, f"sigma:{variant}": 2.0, f"n:{variant}": 30},
            )
            assert (await sam.request(FeaturedRace(), Featured)).race == featured
