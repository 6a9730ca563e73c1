"""A race's events, typed, and how they are written into its stream and channel.

Each event is a small named tuple (:data:`RaceEvent`); watchers dispatch on
its type. On the wire between nodes every event but one is a map
(``{"k": kind, ...}``), written once or a few times a race. The exception is
the move event, written once per move and kept with the finished race for
days: it dominates both the bytes a node sends Redis and the memory a
finished race holds there, so it is packed as a short array of the move and
the numbers opponents see. The cards-played count (``moves``) is not
stored: it is ``seq + 1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import msgpack

from protocol.views import Progress
from server.rules.results import RaceResults
from server.rules.tournaments import Doc

__all__ = [
    "MOVE",
    "Finished",
    "Joined",
    "Left",
    "MoveMade",
    "PresenceChanged",
    "RaceEvent",
    "ReadySet",
    "RematchOffered",
    "Resigned",
    "SeatClaimed",
    "Starting",
    "TournamentChanged",
    "decode_event",
    "encode_event",
]

#: The first item of a packed move event (maps, the other events, never start so).
MOVE = "m"

_PLAYING, _WON, _STUCK = 0, 1, 2

#: A map read from the stream as it was written (a layout, a view, results, a document).
Data = Mapping[str, object]


class Joined(NamedTuple):
    """A racer joined the race's lobby."""

    player: str
    name: str


class Left(NamedTuple):
    """A racer left the race's lobby."""

    player: str


class ReadySet(NamedTuple):
    """A racer said whether they are ready."""

    player: str
    ready: bool


class Starting(NamedTuple):
    """The deal is fixed: the countdown runs until ``started_at``. ``layout`` and
    ``view`` are the wire's maps of the layout and the opening every racer gets."""

    started_at: float
    ends_at: float
    commitment: str
    deal_version: int
    layout: Data
    view: Data
    legal: list[str]


class MoveMade(NamedTuple):
    """A racer's move ``seq`` was stored: the move, and their progress after it."""

    player: str
    seq: int
    move: str
    progress: Progress
    at: float


class Resigned(NamedTuple):
    """A racer's game was ended for them (``progress.left``: away past the grace)."""

    player: str
    progress: Progress
    at: float


class PresenceChanged(NamedTuple):
    """A racer's connection went (``away``: since when) or came back (None)."""

    player: str
    away: float | None


class SeatClaimed(NamedTuple):
    """A connection of ``player`` took their seat: ``holder`` names that connection.

    A seat has one live connection; the one that held it before hears this
    and stops moving (``seat_taken``).
    """

    player: str
    holder: str


class Finished(NamedTuple):
    """The race's results: standings, the revealed seed, every racer's log."""

    results: RaceResults


class RematchOffered(NamedTuple):
    """A racer of the finished race accepted a rematch (``lua/rematch.lua``): the first
    acceptance of each racer is told to the others, with the new race once all accepted."""

    player: str
    name: str
    accepted: int
    racers: int
    rematch: str | None = None


class TournamentChanged(NamedTuple):
    """A tournament's document after a change (on a tournament's channel)."""

    doc: Doc


RaceEvent = (
    Joined | Left | ReadySet | Starting | MoveMade | Resigned | PresenceChanged | Finished
    | RematchOffered | SeatClaimed
)  # fmt: skip
Event = RaceEvent | TournamentChanged

_KINDS: dict[type[Event], str] = {
    Joined: "joined",
    Left: "left",
    ReadySet: "ready",
    Starting: "starting",
    Resigned: "resigned",
    PresenceChanged: "presence",
    SeatClaimed: "seat",
    Finished: "results",
    RematchOffered: "rematch",
    TournamentChanged: "tournament",
}


def _progress_data(progress: Progress) -> dict[str, object]:
    return dict(progress.to_data())


def encode_event(event: Event) -> bytes:
    """An event's payload in the stream and on the channel."""
    if type(event) is MoveMade:
        progress = event.progress
        outcome = _WON if progress.won else _STUCK if progress.over else _PLAYING
        packed = [MOVE, event.player, event.seq, event.move, progress.home, progress.target,
                  outcome, event.at]  # fmt: skip
        return bytes(msgpack.packb(packed, use_bin_type=True))
    data: dict[str, object]
    if isinstance(event, Finished):
        data = {"k": "results", **event.results.to_data()}
    elif isinstance(event, Resigned):
        data = {"k": "resigned", "player": event.player,
                "progress": _progress_data(event.progress), "at": event.at}  # fmt: skip
    else:
        data = {"k": _KINDS[type(event)], **event._asdict()}
    return bytes(msgpack.packb(data, use_bin_type=True))


def decode_event(payload: bytes) -> Event:
    """The event a payload holds, as :func:`encode_event` was given it."""
    data = msgpack.unpackb(payload, raw=False, strict_map_key=False)
    if isinstance(data, list):
        _, player, seq, move, home, target, outcome, at = data
        progress = Progress(home, target, seq + 1, outcome == _WON, outcome != _PLAYING)
        return MoveMade(player, seq, move, progress, at)
    kind = data.pop("k")
    if kind == "results":
        return Finished(RaceResults.from_data(data))
    if kind == "resigned":
        return Resigned(data["player"], Progress.from_data(data["progress"]), data["at"])
    if kind == "move":  # written by a node older than the packed move event
        progress = Progress.from_data(data["progress"])
        return MoveMade(data["player"], data["seq"], data["move"], progress, data["at"])
    return _BY_KIND[kind](**data)


_BY_KIND: dict[
    str,
    type[
        Joined
        | Left
        | ReadySet
        | Starting
        | PresenceChanged
        | SeatClaimed
        | RematchOffered
        | TournamentChanged
    ],
] = {
    "joined": Joined,
    "left": Left,
    "ready": ReadySet,
    "starting": Starting,
    "presence": PresenceChanged,
    "seat": SeatClaimed,
    "rematch": RematchOffered,
    "tournament": TournamentChanged,
}
