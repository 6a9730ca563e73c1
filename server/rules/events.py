"""A race's events, typed.

Each event is a small named tuple (:data:`RaceEvent`); watchers dispatch on
its type. How an event is written into a race's stream and channel is the
storage edge's business (:mod:`server.storage.event_codec`): the rules stay
free of any encoding.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from protocol.results import RaceAnalysis
from protocol.tournaments import Tournament
from protocol.views import Progress
from server.rules.results import RaceResults

__all__ = [
    "Analysed",
    "Event",
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
]

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


class Analysed(NamedTuple):
    """The post-race analysis of a race whose results were announced without it."""

    analysis: RaceAnalysis


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

    doc: Tournament


RaceEvent = (
    Joined | Left | ReadySet | Starting | MoveMade | Resigned | PresenceChanged | Finished
    | RematchOffered | SeatClaimed | Analysed
)  # fmt: skip
Event = RaceEvent | TournamentChanged
