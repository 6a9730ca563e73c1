"""The typed values inside messages: views, progress, standings, race summaries.

Each must turn today's wire maps into a value and back into the very same
bytes, and refuse a map of the wrong shape with a typed error.
"""

from __future__ import annotations

from typing import Any

import pytest

from protocol.codec import pack_value
from protocol.exceptions import InvalidField, RemoteProtocolError
from protocol.lobby import RacePhase, RaceSummary, Winnable
from protocol.messages import SpectatePolicy
from protocol.results import DecidedBy, RacerStatus, Standing, StopReason
from protocol.views import Progress, View

#: Maps as the server builds them, keys in the server's order.
PROGRESS: dict[str, Any] = {"home": 8, "target": 104, "moves": 3, "won": False, "over": False}
VIEW: dict[str, Any] = {
    "variant": "royal-cotillion",
    "piles": {"w": [12, 40], "f1": [0], "t1": []},
    "hidden": {"s": 60},
    "redeals_left": 0,
    **PROGRESS,
}
STANDING: dict[str, Any] = {
    "place": 1,
    "player": "p1",
    "name": "Ann",
    "status": "won",
    "home": 104,
    "moves": 230,
    "time": 301.5,
    "by": None,
}
RATED_STANDING: dict[str, Any] = {
    **STANDING,
    "place": 2,
    "status": "timeout",
    "by": "cards home",
    "rating": 1512,
    "change": -8,
    "provisional": True,
}
RACE: dict[str, Any] = {
    "id": "r7",
    "code": "KQ7H",
    "variant": "royal-cotillion",
    "host": "p1",
    "players": ["p1", "p2"],
    "names": {"p1": "Ann", "p2": "Bob"},
    "ready": ["p1"],
    "phase": "running",
    "max_players": 4,
    "time_limit": 600,
    "spectate": "delayed",
    "delay": 30,
    "grace": 60,
    "tournament": None,
    "tournament_code": None,
    "host_name": "Ann",
    "away": {"p2": 1700000012.5},
    "deal": None,
    "winnable": "proved",
    "practice": False,
    "commitment": "ab" * 32,
    "started_at": 1700000000.0,
    "ends_at": 1700000600.0,
}


def same_bytes(a: object, b: object) -> bool:
    return pack_value(a) == pack_value(b)


def test_progress_round_trips() -> None:
    """A progress map becomes a Progress and the same map again."""
    progress = Progress.from_data(PROGRESS)
    assert progress == Progress(home=8, target=104, moves=3, won=False, over=False)
    assert progress.to_data() == PROGRESS
    assert progress.status is RacerStatus.PLAYING


@pytest.mark.parametrize(
    ("extra", "status"),
    [
        ({"resigned": True}, RacerStatus.RESIGNED),
        ({"resigned": True, "left": True}, RacerStatus.LEFT),
        ({"won": True, "home": 104}, RacerStatus.WON),
        ({"over": True}, RacerStatus.STUCK),
    ],
)
def test_progress_keeps_how_a_game_ended(extra: dict[str, Any], status: RacerStatus) -> None:
    """resigned and left survive the round trip and say the racer's status."""
    data = {**PROGRESS, **extra}
    progress = Progress.from_data(data)
    assert progress.to_data() == data
    assert same_bytes(progress.to_data(), data)
    assert progress.status is status


def test_view_round_trips_to_the_same_bytes() -> None:
    """A view becomes a View and packs to the bytes of the map it came from."""
    view = View.from_data(VIEW)
    assert view.piles == {"w": (12, 40), "f1": (0,), "t1": ()}
    assert view.hidden == {"s": 60}
    assert view.progress == Progress.from_data(PROGRESS)
    assert view.moves == 3
    assert view.cards("w") == (12, 40)
    assert view.cards("s") == ()
    assert same_bytes(view.to_data(), VIEW)
    assert View.from_data(view.to_data()) == view


def test_view_with_tuples_packs_like_lists() -> None:
    """A view built from the engine's tuples packs as the wire's arrays."""
    view = View("royal-cotillion", {"w": (12, 40)}, {"s": 60}, 0, Progress(0, 104, 0, False, False))
    assert same_bytes(view.to_data(), {**view.to_data(), "piles": {"w": [12, 40]}})


def test_standing_round_trips() -> None:
    """A standing, rated or not, becomes a Standing and the same map again."""
    for data in (STANDING, RATED_STANDING):
        standing = Standing.from_data(data)
        assert standing.to_data() == data
        assert same_bytes(standing.to_data(), data)
    rated = Standing.from_data(RATED_STANDING)
    assert rated.status is RacerStatus.TIMEOUT
    assert rated.by is DecidedBy.CARDS_HOME
    assert rated.rated and not Standing.from_data(STANDING).rated
    assert Standing.from_data(STANDING).won


def test_race_summary_round_trips() -> None:
    """A race info map becomes a RaceSummary and the same map again."""
    race = RaceSummary.from_data(RACE)
    assert race.phase is RacePhase.RUNNING
    assert race.spectate is SpectatePolicy.DELAYED
    assert race.winnable is Winnable.PROVED
    assert race.players == ("p1", "p2")
    assert race.name("p2") == "Bob" and race.name("p9") == "p9"
    assert race.to_data() == RACE
    assert same_bytes(race.to_data(), RACE)


def test_race_summary_fills_what_older_servers_left_out() -> None:
    """Keys added to the race info later may be missing; unknown keys are ignored."""
    older = {
        k: v for k, v in RACE.items() if k not in ("host_name", "away", "winnable", "practice")
    }
    race = RaceSummary.from_data({**older, "something_new": 1})
    assert race.host_name == "" and race.away == {} and race.winnable is None
    assert not race.practice


def test_stop_reasons_are_racer_statuses() -> None:
    """Each way a game is stopped for a racer is the status it ends with."""
    assert [reason.status for reason in StopReason] == [RacerStatus.RESIGNED, RacerStatus.LEFT]
    assert all(status.finished for status in RacerStatus if status is not RacerStatus.PLAYING)
    assert not RacerStatus.PLAYING.finished


BAD: list[tuple[type[Any], object, str]] = [
    (Progress, [1, 2], "progress"),
    (Progress, {**PROGRESS, "home": "8"}, "progress.home"),
    (Progress, {**PROGRESS, "won": 0}, "progress.won"),
    (Progress, {k: v for k, v in PROGRESS.items() if k != "target"}, "progress.target"),
    (View, {**VIEW, "piles": {"w": [1, "x"]}}, "view.piles"),
    (View, {**VIEW, "piles": [1]}, "view.piles"),
    (View, {**VIEW, "hidden": {"s": True}}, "view.hidden"),
    (View, {**VIEW, "variant": None}, "view.variant"),
    (View, {**VIEW, "moves": 1.5}, "view.moves"),
    (Standing, {**STANDING, "status": "playing"}, "standing.status"),
    (Standing, {**STANDING, "status": "lost"}, "standing.status"),
    (Standing, {**STANDING, "by": "luck"}, "standing.by"),
    (Standing, {**STANDING, "time": "301"}, "standing.time"),
    (Standing, {**STANDING, "rating": 1.5}, "standing.rating"),
    (RaceSummary, {**RACE, "phase": "later"}, "race.phase"),
    (RaceSummary, {**RACE, "players": ["p1", 2]}, "race.players"),
    (RaceSummary, {**RACE, "names": {"p1": 1}}, "race.names"),
    (RaceSummary, {**RACE, "names": {1: "Ann"}}, "race.names"),
    (RaceSummary, {**RACE, "away": {"p2": "soon"}}, "race.away"),
    (RaceSummary, {**RACE, "spectate": "never"}, "race.spectate"),
    (RaceSummary, {k: v for k, v in RACE.items() if k != "id"}, "race.id"),
]


@pytest.mark.parametrize(("kind", "data", "field"), BAD)
def test_bad_shapes_are_refused_with_the_field_named(
    kind: type[Any], data: object, field: str
) -> None:
    """A map of the wrong shape raises InvalidField naming the shape and key."""
    with pytest.raises(InvalidField) as caught:
        kind.from_data(data)
    assert caught.value.field == field
    assert isinstance(caught.value, RemoteProtocolError)
