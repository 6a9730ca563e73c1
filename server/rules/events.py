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


class TournamentChanged:
    """A tournament's document after a change (on a tournament's channel).

    The node that made the change has the document (and its map); every node
    hears of it as the map stored (``data``), and is given the document only
    if it asks:
    reading an arena of a thousand entrants into a :class:`Tournament` takes
    tens of milliseconds, and its watchers forward the map as it is.
    """

    __slots__ = ("_data", "_doc")

    def __init__(
        self, doc: Tournament | None = None, *, data: Mapping[str, object] | None = None
    ) -> None:
        if doc is None and data is None:
            raise TypeError("give the document, its map, or both")
        self._doc = doc
        self._data = data

    @property
    def doc(self) -> Tournament:
        """The document (read from the map at the first ask)."""
        if self._doc is None:
            self._doc = Tournament.from_data(self._data)
        return self._doc

    @property
    def data(self) -> Mapping[str, object]:
        """The document's map, as stored and pushed (``Tournament.to_data``)."""
        if self._data is None:
            assert self._doc is not None
            self._data = self._doc.to_data()
        return self._data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TournamentChanged) and self.doc == other.doc

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TournamentChanged({self.doc!r})"


RaceEvent = (
    Joined | Left | ReadySet | Starting | MoveMade | Resigned | PresenceChanged | Finished
    | RematchOffered | SeatClaimed | Analysed
)  # fmt: skip
Event = RaceEvent | TournamentChanged
