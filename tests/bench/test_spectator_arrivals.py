"""The spectator bench's tally of arrivals (bench/spectators.py), kept per distinct frame."""

from __future__ import annotations

import time

import msgpack

from bench.spectators import Arrivals
from protocol.codec import encode
from protocol.messages import Spectators


def _board(player: str, seq: int) -> bytes:
    """A board as the bench reads it: only t, player and seq matter to the tally."""
    frame: bytes = msgpack.packb(
        {"t": "board", "race": "r1", "player": player, "seq": seq, "event": 9}
    )
    return frame


def test_arrivals_are_counted_per_frame_and_boards_keyed_by_move() -> None:
    """Each arrival is one time under its board's player|seq, whichever copy of the bytes
    came; other pushes count in the window but not as boards; a pushed ``spectating``
    (no id) is a fresh snapshot."""
    arrivals = Arrivals()
    start = time.time()
    for _ in range(3):
        arrivals.arrived(bytes(_board("p1", 0)))  # a new bytes object each time, as picows gives
    arrivals.arrived(_board("p2", 0))
    arrivals.arrived(encode(Spectators(race="r1", count=4)))
    arrivals.arrived(b"\x81\xa1t\xaaspectating")
    end = time.time()
    boards = arrivals.boards
    assert sorted(boards) == ["p1|0", "p2|0"] and len(boards["p1|0"]) == 3
    assert arrivals.boards_done(3) == 1 and arrivals.boards_done(1) == 2
    assert arrivals.snapshots == 1
    assert arrivals.frames_in(start, end) == 6 and arrivals.frames_in(end + 1, end + 2) == 0
