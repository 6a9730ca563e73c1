"""The stream's event encoding: a move event is short, and reads back as it was made."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from server.rules.events import decode_event, encode_event, move_event


def _progress(home: int, moves: int, *, won: bool = False, over: bool = False) -> dict[str, Any]:
    return {"home": home, "target": 104, "moves": moves, "won": won, "over": over}


@pytest.mark.parametrize(
    "progress",
    [_progress(12, 8), _progress(104, 300, won=True, over=True), _progress(40, 1, over=True)],
)
def test_a_move_event_reads_back_as_the_node_made_it(progress: dict[str, Any]) -> None:
    """Playing, won and stuck all survive the trip, and the payload stays small."""
    event = move_event("3f9c0a1b2d4e", progress["moves"] - 1, "w f13", progress, 1_790_000_000.25)
    payload = encode_event(event)
    assert decode_event(payload) == event
    assert len(payload) < len(msgpack.packb(event)) / 2


def test_other_events_are_maps_as_given() -> None:
    """Events written a few times a race keep their plain, self-describing form."""
    event = {"k": "resigned", "player": "p1", "progress": _progress(3, 9), "at": 5.0}
    payload = encode_event(event)
    assert msgpack.unpackb(payload) == event
    assert decode_event(payload) == event
