"""How a racer's game stands or ended, and their line in a race's results.

The words here are the protocol's own (``docs/protocol.md``, **Standing**):
the server stores them, both ends compare them, and they are the same text on
the wire, so the enums are ``StrEnum``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from protocol.validation import Shape

__all__ = [
    "DecidedBy",
    "RaceAnalysis",
    "RacerAnalysis",
    "RacerStatus",
    "Standing",
    "StopReason",
    "Winnability",
]


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


class Winnability(enum.StrEnum):
    """What the post-race analysis found of one racer's game (``docs/protocol.md``)."""

    WON = "won"  # they won: the deal stayed winnable to the end
    KEPT = "winnable"  # not won, but still winnable after their last move
    LOST = "lost"  # winnable at the start; ``move`` made it unwinnable
    NEVER = "unwinnable"  # the deal was not winnable from the start
    UNKNOWN = "unknown"  # the solver could not decide in the analysis's time


@dataclass(frozen=True, slots=True)
class RacerAnalysis:
    """One racer's game after the race: whether and where the deal stopped being winnable.

    ``move`` (1-based) and ``text`` name the first move after which the racer's
    board was no longer winnable; both are None unless ``verdict`` is ``lost``.
    """

    player: str
    verdict: Winnability
    move: int | None = None
    text: str | None = None

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {"player": self.player, "verdict": self.verdict.value}
        if self.move is not None:
            data["move"], data["text"] = self.move, self.text
        return data

    @classmethod
    def from_data(cls, data: object) -> RacerAnalysis:
        shape = Shape(data, "analysis")
        return cls(
            player=shape.text("player"),
            verdict=shape.choice("verdict", Winnability),
            move=shape.optional_integer("move"),
            text=shape.optional_text("text"),
        )

    def describe(self, par: int | None) -> str:
        """The analysis in words, e.g. ``winnable until move 23 (p3>p7); par 61 moves``."""
        verdict = self.verdict
        if verdict is Winnability.LOST:
            words = f"winnable until move {self.move} ({self.text})"
        elif verdict is Winnability.WON:
            words = "won: winnable throughout"
        elif verdict is Winnability.KEPT:
            words = "still winnable after the last move"
        elif verdict is Winnability.NEVER:
            words = "the deal was not winnable"
        else:
            words = "winnability unknown (the solver ran out of time)"
        return words if par is None else f"{words}; par {par} moves"


@dataclass(frozen=True, slots=True)
class RaceAnalysis:
    """The post-race analysis of every racer, sent after the results.

    ``par`` is the length of the winning line the solver found from the
    opening (not a proved shortest line), None when it found none.
    """

    par: int | None
    racers: tuple[RacerAnalysis, ...]

    def of(self, player: str) -> RacerAnalysis | None:
        """The analysis of ``player``'s game, if they raced."""
        return next((racer for racer in self.racers if racer.player == player), None)

    def to_data(self) -> dict[str, object]:
        return {"par": self.par, "racers": [racer.to_data() for racer in self.racers]}

    @classmethod
    def from_data(cls, data: object) -> RaceAnalysis:
        shape = Shape(data, "analysis")
        racers = shape.value("racers")
        if not isinstance(racers, list):
            raise shape.invalid("racers", "must be a list")
        return cls(
            par=shape.optional_integer("par"),
            racers=tuple(RacerAnalysis.from_data(racer) for racer in racers),
        )
