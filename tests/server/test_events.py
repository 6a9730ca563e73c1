"""The stream's event encoding: a move event is short, and every event reads back as
the node made it."""

from __future__ import annotations

import msgpack
import pytest

from protocol.messages import SpectatePolicy, TournamentFormat
from protocol.tournaments import Tournament, TournamentStatus
from protocol.views import Progress
from server.rules.events import (
    Event,
    Finished,
    Joined,
    Left,
    MoveMade,
    PresenceChanged,
    ReadySet,
    Resigned,
    Starting,
    TournamentChanged,
)
from server.rules.results import RaceResults
from server.storage.event_codec import decode_event, encode_event


def _progress(home: int, moves: int, *, won: bool = False, over: bool = False) -> Progress:
    return Progress(home, 104, moves, won, over)


@pytest.mark.parametrize(
    "progress",
    [_progress(12, 8), _progress(104, 300, won=True, over=True), _progress(40, 1, over=True)],
)
def test_a_move_event_reads_back_as_the_node_made_it(progress: Progress) -> None:
    """Playing, won and stuck all survive the trip, and the payload stays small."""
    event = MoveMade("3f9c0a1b2d4e", progress.moves - 1, "w f13", progress, 1_790_000_000.25)
    payload = encode_event(event)
    assert decode_event(payload) == event
    as_map = {"k": "move", **event._asdict(), "progress": progress.to_data()}
    assert len(payload) < len(msgpack.packb(as_map)) / 2


def test_other_events_are_maps_as_given() -> None:
    """Events written a few times a race keep their plain, self-describing form."""
    event = Resigned("p1", _progress(3, 9)._replace(resigned=True, left=True), 5.0)
    payload = encode_event(event)
    assert msgpack.unpackb(payload) == {
        "k": "resigned",
        "player": "p1",
        "progress": {"home": 3, "target": 104, "moves": 9, "won": False, "over": False,
                     "resigned": True, "left": True},
        "at": 5.0,
    }  # fmt: skip
    assert decode_event(payload) == event


@pytest.mark.parametrize(
    "event",
    [
        Joined("p1", "Ann"),
        Left("p1"),
        ReadySet("p1", True),
        Starting(1.0, 61.0, "ab" * 32, 1, {"piles": []}, {"variant": "gavotte"}, ["deal"]),
        PresenceChanged("p1", 7.5),
        PresenceChanged("p1", None),
        Finished(RaceResults((), 7, "ab" * 32, 1, "gavotte", {"p1": ["deal"]})),
        TournamentChanged(
            Tournament(
                id="T1",
                code="CODE",
                host="p1",
                host_name="Ann",
                name="Cup",
                format=TournamentFormat.ROUNDS,
                variants=("gavotte",),
                time_limit=300,
                spectate=SpectatePolicy.LIVE,
                delay=0,
                status=TournamentStatus.OPEN,
                created=5.0,
            )
        ),
    ],
)
def test_every_kind_of_event_reads_back_as_its_own_type(event: Event) -> None:
    """Each event comes back from its payload as the value it was, so watchers dispatch
    on its type."""
    assert decode_event(encode_event(event)) == event
