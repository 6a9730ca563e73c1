"""A racer's board as a player may see it, and their progress as an opponent may.

Both ends hold these as typed values: the server builds them from the
engine, a client parses them where a message arrives and draws from them.
``to_data`` gives exactly the maps ``docs/protocol.md`` describes (**View**
and **Progress**, in the keys' wire order); ``from_data`` reads such a map
back, or refuses it with :class:`~protocol.exceptions.InvalidField`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple, NotRequired, TypedDict

from protocol.results import RacerStatus
from protocol.validation import Shape

__all__ = ["Progress", "View", "ViewMap"]


class ViewMap(TypedDict):
    """A **View** as the wire's map, typed: what the server's engine builds straight
    for the hot path of a move (one per move), where a :class:`View` would be made
    only to be turned back into this map. ``View.from_data`` reads one."""

    variant: str
    piles: dict[str, tuple[int, ...]]
    hidden: dict[str, int]
    redeals_left: int
    home: int
    target: int
    moves: int
    won: bool
    over: bool
    #: As in :class:`Progress`: present (true) once the racer resigned, or was resigned
    #: for being away (``left`` too). A spectator's snapshot carries them.
    resigned: NotRequired[bool]
    left: NotRequired[bool]


class Progress(NamedTuple):
    """How far a racer has got, and nothing of their cards.

    A tuple, because one is made for every move on the server's hot path.
    ``resigned`` is true once the racer resigned, and ``left`` as well when
    the server resigned them for being away past the grace.
    """

    home: int
    target: int
    moves: int
    won: bool
    over: bool
    resigned: bool = False
    left: bool = False

    @property
    def status(self) -> RacerStatus:
        """How the racer stands: still playing, or how their game ended."""
        if self.left:
            return RacerStatus.LEFT
        if self.resigned:
            return RacerStatus.RESIGNED
        if self.won:
            return RacerStatus.WON
        if self.over:
            return RacerStatus.STUCK
        return RacerStatus.PLAYING

    def to_data(self) -> dict[str, int | bool]:
        data: dict[str, int | bool] = {
            "home": self.home,
            "target": self.target,
            "moves": self.moves,
            "won": self.won,
            "over": self.over,
        }
        if self.resigned:
            data["resigned"] = True
        if self.left:
            data["left"] = True
        return data

    @classmethod
    def from_data(cls, data: object) -> Progress:
        return cls.read(Shape(data, "progress"))

    @classmethod
    def read(cls, shape: Shape) -> Progress:
        """The progress keys of ``shape`` (a progress map, or a view that carries them)."""
        return cls(
            home=shape.integer("home"),
            target=shape.integer("target"),
            moves=shape.integer("moves"),
            won=shape.flag("won"),
            over=shape.flag("over"),
            resigned=shape.flag("resigned", False),
            left=shape.flag("left", False),
        )


@dataclass(frozen=True, slots=True)
class View:
    """What one racer may see of their board.

    ``piles`` maps each face-up pile's id to its cards (card ids, bottom
    first); ``hidden`` maps each face-down pile's id to its count only. Every
    pile of the layout is in exactly one of them.
    """

    variant: str
    piles: Mapping[str, tuple[int, ...]]
    hidden: Mapping[str, int]
    redeals_left: int
    progress: Progress

    @property
    def moves(self) -> int:
        """How many moves led here: the view's step in a replay."""
        return self.progress.moves

    def cards(self, pile_id: str) -> tuple[int, ...]:
        """The face-up cards of ``pile_id``, bottom first; none for a hidden or unknown pile."""
        return self.piles.get(pile_id, ())

    def to_data(self) -> dict[str, object]:
        return {
            "variant": self.variant,
            "piles": dict(self.piles),
            "hidden": dict(self.hidden),
            "redeals_left": self.redeals_left,
            **self.progress.to_data(),
        }

    @classmethod
    def from_data(cls, data: object) -> View:
        shape = Shape(data, "view")
        return cls(
            variant=shape.text("variant"),
            piles=shape.of_integer_arrays("piles"),
            hidden=shape.of_integers("hidden"),
            redeals_left=shape.integer("redeals_left"),
            progress=Progress.read(shape),
        )
