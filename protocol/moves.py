"""Moves in the short text form shared by the engine, the wire and people.

====================  =========================================================
text                  meaning
====================  =========================================================
``w>f3``              move the available card of pile ``w`` onto pile ``f3``
``r:4>f2``            move the card at position 4 (0-based, from the bottom) of
                      a spread pile, where every card is available
``p5>x``              discard the available card of ``p5`` (also read from
                      ``discard p5``)
``deal``              deal from the stock
``deal-reversed``     make the final deal right to left
``redeal``            turn the waste (or the tableau) over as a new stock
``swap p3 p9``        exchange two cards that belong in each other's places
``swap p3 p9 p17``    rotate three cards, each into the place of the card
                      lying in the row it belongs to
====================  =========================================================

Pile ids are the layout's ids: lowercase letters, then optional digits.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = ["DISCARD_PILE", "Move", "MoveKind", "MoveSyntaxError"]

DISCARD_PILE = "x"
_PILE = r"[a-z]+[0-9]*"
_CARD_MOVE = re.compile(rf"({_PILE})(?::([0-9]{{1,3}}))?>({_PILE})")
_SWAP = re.compile(rf"swap ({_PILE}) ({_PILE})(?: ({_PILE}))?")
_DISCARD = re.compile(rf"discard ({_PILE})(?::([0-9]{{1,3}}))?")


class MoveSyntaxError(ValueError):
    """Move text that does not parse; says nothing about legality."""


class MoveKind(enum.Enum):
    """What a move does; actions have no source or destination pile."""

    MOVE = "move"
    SWAP = "swap"
    DEAL = "deal"
    DEAL_REVERSED = "deal-reversed"
    REDEAL = "redeal"


_ACTIONS = {kind.value: kind for kind in (MoveKind.DEAL, MoveKind.DEAL_REVERSED, MoveKind.REDEAL)}


@dataclass(frozen=True, slots=True)
class Move:
    """One move or action. Build with the class methods or :meth:`parse`.

    A swap names its piles in ``src`` and ``dst``, and a three-card rotation
    its last pile in ``third``; every other move leaves ``third`` empty.
    """

    kind: MoveKind
    src: str | None = None
    dst: str | None = None
    index: int | None = None
    third: str | None = None

    @classmethod
    def card(cls, src: str, dst: str, index: int | None = None) -> Move:
        """The available card of ``src`` (or the one at ``index``) onto ``dst``."""
        return cls(MoveKind.MOVE, src, dst, index)

    @classmethod
    def discard(cls, src: str, index: int | None = None) -> Move:
        return cls(MoveKind.MOVE, src, DISCARD_PILE, index)

    @classmethod
    def swap(cls, first: str, second: str, third: str | None = None) -> Move:
        """Two cards trading places, or with ``third`` three cards rotating."""
        return cls(MoveKind.SWAP, first, second, None, third)

    @classmethod
    def deal(cls) -> Move:
        return cls(MoveKind.DEAL)

    @classmethod
    def deal_reversed(cls) -> Move:
        return cls(MoveKind.DEAL_REVERSED)

    @classmethod
    def redeal(cls) -> Move:
        return cls(MoveKind.REDEAL)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the text form; raises :class:`MoveSyntaxError`."""
        if not isinstance(text, str) or len(text) > 40:
            raise MoveSyntaxError(f"not a move: {text!r}")
        body = " ".join(text.strip().lower().split())
        if body in _ACTIONS:
            return cls(_ACTIONS[body])
        if match := _CARD_MOVE.fullmatch(body):
            src, index, dst = match.groups()
            return cls.card(src, dst, None if index is None else int(index))
        if match := _SWAP.fullmatch(body):
            return cls.swap(*match.groups())
        if match := _DISCARD.fullmatch(body):
            src, index = match.groups()
            return cls.discard(src, None if index is None else int(index))
        raise MoveSyntaxError(f"not a move: {text!r}")

    @property
    def piles(self) -> tuple[str, ...]:
        """Every pile the move names, source first (a rotation names three)."""
        named = (self.src, self.dst, self.third)
        return tuple(pile for pile in named if pile is not None)

    @property
    def is_discard(self) -> bool:
        return self.kind is MoveKind.MOVE and self.dst == DISCARD_PILE

    def text(self) -> str:
        """The canonical text; ``Move.parse(m.text()) == m``."""
        if self.kind is MoveKind.MOVE:
            at = "" if self.index is None else f":{self.index}"
            return f"{self.src}{at}>{self.dst}"
        if self.kind is MoveKind.SWAP:
            last = "" if self.third is None else f" {self.third}"
            return f"swap {self.src} {self.dst}{last}"
        return str(self.kind.value)  # mypy 2 widens a narrowed enum's value to Any

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move.parse({self.text()!r})"
