"""The results screen shows rating changes, and marks guests once accounts race."""

from __future__ import annotations

from rich.console import Console

from client.models.ratings import rating_change
from client.models.record import RaceRecord
from client.screens.results import results_text
from protocol.messages import RaceFinished
from protocol.results import Standing


def _render(record: RaceRecord) -> str:
    console = Console(width=100, record=True)
    console.print(results_text(record))
    return console.export_text()


def _standing(place: int, player: str, name: str, **rating: object) -> Standing:
    return Standing.from_data({
        "place": place, "player": player, "name": name, "status": "resigned",
        "home": 10, "moves": 5, "time": 12.5, **rating,
    })  # fmt: skip


def test_results_show_rating_changes_and_guests() -> None:
    """+12 for the winner, −8 for the account placed below, a guest marked and unrated."""
    standings = [
        _standing(1, "u000000000001", "Ann", rating=1512, change=12, provisional=False),
        _standing(2, "u000000000002", "Bob", rating=1492, change=-8, provisional=True),
        _standing(3, "0123456789ab", "Ann"),
    ]
    finished = RaceFinished(
        race="r1", standings=standings, seed=1, commitment="0" * 64, deal_version=1, logs={}
    )
    record = RaceRecord("r1", me="u000000000001", finished=finished, variant_name="quadrille")
    text = _render(record)
    assert "Rating" in text and "1512 +12" in text and "1492? −8" in text
    assert "Ann (guest)" in text and "Ann (you)" in text


def test_unrated_results_have_no_rating_column() -> None:
    finished = RaceFinished(
        race="r1", standings=[_standing(1, "0123456789ab", "Cy")], seed=1,
        commitment="0" * 64, deal_version=1, logs={},
    )  # fmt: skip
    text = _render(RaceRecord("r1", finished=finished, variant_name="quadrille"))
    assert "Rating" not in text and "(guest)" not in text
    assert rating_change(finished.standings[0]) == ""
