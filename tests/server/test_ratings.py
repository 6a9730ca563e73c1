"""Ratings: the pure rules (which races count, ranks with ties, the Plackett-Luce update)."""

from __future__ import annotations

from dataclasses import replace

from protocol.results import RacerStatus, Standing
from server.rules.races import RaceSettings, Spectate
from server.rules.ratings import PROVISIONAL_RACES, Skill, is_rated, ranks, rate

A, B, C = "u000000000001", "u000000000002", "u000000000003"
GUEST = "0123456789ab"


def test_winner_gains_and_loser_loses() -> None:
    """The better placed racer's rating rises by what the other's falls, from equal skills."""
    after = rate([(A, 1), (B, 2)], {A: Skill(), B: Skill()})
    assert after[A].display > 1500 > after[B].display
    assert after[A].display - 1500 == 1500 - after[B].display
    assert after[A].races == after[B].races == 1


def test_a_tie_moves_equal_racers_equally() -> None:
    after = rate([(A, 1), (B, 1), (C, 3)], {A: Skill(), B: Skill(), C: Skill()})
    assert after[A] == after[B]
    assert after[C].display < 1500 < after[A].display


def test_ranks_tie_only_what_the_standings_cannot_part() -> None:
    rows = [
        (RacerStatus.WON, 50.0, 104),
        (RacerStatus.WON, 60.0, 104),
        (RacerStatus.TIMEOUT, 600.0, 40),
        (RacerStatus.TIMEOUT, 600.0, 40),
        (RacerStatus.TIMEOUT, 600.0, 12),
    ]
    standings = [
        Standing(place, f"p{place}", f"P{place}", status, home, 0, time)
        for place, (status, time, home) in enumerate(rows, 1)
    ]
    assert ranks(standings) == [1, 2, 3, 3, 5]


def test_which_races_are_rated() -> None:
    """Secret deals with two or more accounts; never public deals or races marked unrated."""
    secret = RaceSettings(
        variant="klondike", seed=1, deal_version=1, time_limit=600, spectate=Spectate.LIVE
    )
    assert is_rated(secret, [A, B])
    assert is_rated(secret, [A, B, GUEST])
    assert not is_rated(secret, [A, GUEST])
    assert not is_rated(replace(secret, deal=7), [A, B])
    assert not is_rated(replace(secret, unrated=True), [A, B])
    assert not is_rated(replace(secret, practice=True), [A, B])


def test_provisional_until_enough_races() -> None:
    assert Skill(races=PROVISIONAL_RACES - 1).text() == "1500?"
    assert Skill(races=PROVISIONAL_RACES).text() == "1500"
