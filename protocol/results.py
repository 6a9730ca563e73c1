"""How a racer's game stands or ended, and their line in a race's results.

The words here are the protocol's own (``docs/protocol.md``, **Standing**):
the server stores them, both ends compare them, and they are the same text on
the wire, so the enums are ``StrEnum``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol.validation import Shape

__all__ = ["DecidedBy", "RacerStatus", "Standing", "StopReason"]


class RacerStatus(enum.StrEnum):
    """How one racer's game stands: playing, or how it ended."""

    PLAYING = "playing"
    WON = "won"
    STUCK = "stuck"  # no legal move left
    RESIGNED = "resigned"
    LEFT = "left"  # away past the race's grace, so resigned by the server
    TIMEOUT = "timeout"  # still playing when the time limit ran out

    @property
    def finished(self) -> bool:
        """Whether the game is over (every status but ``playing``)."""
        return self is not RacerStatus.PLAYING

    @property
    def gave_up(self) -> bool:
        """Whether the racer stopped before the rules or the clock stopped them."""
        return self in (RacerStatus.RESIGNED, RacerStatus.LEFT)


class StopReason(enum.StrEnum):
    """Why a racer's game was ended for them, before the rules or the clock ended it."""

    RESIGNED = "resigned"  # they asked to
    LEFT = "left"  # their connection was gone for longer than the grace

    @property
    def status(self) -> RacerStatus:
        """The status the racer's game ends with."""
        return RacerStatus(self.value)


class DecidedBy(enum.StrEnum):
    """What put a racer below the one above them in the results."""

    WON = "won"  # the one above won and they did not
    TIME = "time"
    CARDS_HOME = "cards home"
    TIE = "tie"  # nothing: they share the place


@dataclass(frozen=True, slots=True)
class Standing:
    """One racer's line in ``race_finished``, best first.

    ``time`` is seconds from the start to the racer's finish, in tenths.
    ``by`` is None for the first line. In a rated race each account's line
    also carries ``rating`` (after the race), ``change`` and ``provisional``.
    """

    place: int
    player: str
    name: str
    status: RacerStatus
    home: int
    moves: int
    time: float
    by: DecidedBy | None = None
    rating: int | None = None
    change: int | None = None
    provisional: bool | None = None

    @property
    def won(self) -> bool:
        return self.status is RacerStatus.WON

    @property
    def rated(self) -> bool:
        """Whether this line carries a rating change."""
        return self.change is not None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {
            "place": self.place,
            "player": self.player,
            "name": self.name,
            "status": self.status.value,
            "home": self.home,
            "moves": self.moves,
            "time": self.time,
            "by": None if self.by is None else self.by.value,
        }
        if self.rating is not None:
            data["rating"] = self.rating
        if self.change is not None:
            data["change"] = self.change
        if self.provisional is not None:
            data["provisional"] = self.provisional
        return data

    @classmethod
    def from_data(cls, data: object) -> Standing:
        shape = Shape(data, "standing")
        status = shape.choice("status", RacerStatus)
        if not status.finished:
            raise shape.invalid("status", "must be how the game ended, not 'playing'")
        return cls(
            place=shape.integer("place"),
            player=shape.text("player"),
            name=shape.text("name"),
            status=status,
            home=shape.integer("home"),
            moves=shape.integer("moves"),
            time=shape.number("time"),
            by=shape.optional_choice("by", DecidedBy),
            rating=shape.optional_integer("rating"),
            change=shape.optional_integer("change"),
            provisional=shape.optional_flag("provisional"),
        )
