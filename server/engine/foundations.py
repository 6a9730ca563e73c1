"""Foundation sequences, written once for every variant.

Each foundation belongs to one suit and builds through a fixed list of ranks.
The dance games differ only in those lists: by ones, by twos with wrap (after
K comes 2, after Q comes A), by threes, or down. Where a source lets "any" 5
or ace start a foundation, each such foundation is reserved for one suit,
which changes no game's outcome because every suit starts exactly one.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from protocol.cards import RANK_NAMES, SUIT_SYMBOLS, kind_of
from server.engine.state import Piles

__all__ = ["Foundation", "FoundationSet", "sequence"]


def sequence(start: int, step: int, length: int) -> tuple[int, ...]:
    """Ranks from ``start`` in steps of ``step``, wrapping K to A (13 -> 1)."""
    ranks = [start]
    for _ in range(length - 1):
        ranks.append((ranks[-1] - 1 + step) % 13 + 1)
    return tuple(ranks)


@dataclass(frozen=True, slots=True)
class Foundation:
    """One suit built through ``ranks``; its first rank starts it."""

    suit: int
    ranks: tuple[int, ...]

    @property
    def kinds(self) -> tuple[int, ...]:
        return tuple(kind_of(self.suit, rank) for rank in self.ranks)

    @property
    def label(self) -> str:
        """Base card and direction, e.g. ``A♣ +2`` or ``5♥ -1``."""
        step = (self.ranks[1] - self.ranks[0]) % 13 if len(self.ranks) > 1 else 0
        sign = "" if step == 0 else f" +{step}" if step < 7 else f" -{13 - step}"
        return f"{RANK_NAMES[self.ranks[0]]}{SUIT_SYMBOLS[self.suit]}{sign}"


class FoundationSet:
    """The foundations of a variant, by pile index, and what each needs next."""

    __slots__ = ("_indexes", "_kinds", "size")

    def __init__(self, foundations: Iterable[tuple[int, Foundation]]) -> None:
        self._kinds = tuple((index, f.kinds) for index, f in foundations)
        self._indexes = tuple(index for index, _ in self._kinds)
        self.size = sum(len(kinds) for _, kinds in self._kinds)

    def needs(self, piles: Piles) -> dict[int, list[int]]:
        """Card kind -> foundation pile indexes that take it now."""
        need: dict[int, list[int]] = {}
        for index, kinds in self._kinds:
            height = len(piles[index])
            if height < len(kinds):
                need.setdefault(kinds[height], []).append(index)
        return need

    def has(self, index: int) -> bool:
        """Whether pile ``index`` is one of these foundations."""
        return index in self._indexes

    def next_kind(self, piles: Piles, index: int) -> int | None:
        """The card kind foundation ``index`` takes next, or None once it is complete."""
        kinds = dict(self._kinds)[index]
        height = len(piles[index])
        return kinds[height] if height < len(kinds) else None

    def home(self, piles: Piles) -> int:
        """Cards on the foundations."""
        return sum([len(piles[index]) for index in self._indexes])
