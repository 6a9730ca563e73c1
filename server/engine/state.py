"""A game position as a value.

A :class:`State` holds only what the rules need: the cards of every pile (in
the variant's layout order, each pile bottom card first), how many redeals
have been used, how many deals and moves were made. It never holds the seed.
States are immutable; moves make new ones. Because they are, what the rules
work out about a position (its legal moves, its cards home) is kept with it
in ``cache`` the first time it is asked for, outside the value: equality and
hashing ignore it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.engine.exceptions import StateDataError

__all__ = ["Piles", "State"]

Piles = tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class State:
    """Piles bottom-first; ``passes`` is the number of redeals already used."""

    variant: str
    piles: Piles
    passes: int = 0
    moves: int = 0
    deals: int = 0  # deal actions made: Royal Rendezvous fills gaps by it
    # What the game worked out about this position (legal moves, cards home),
    # filled on first use by :class:`~server.engine.game.Game`; not part of the value.
    cache: Any = field(default=None, compare=False, repr=False, hash=False)

    def to_data(self) -> dict[str, object]:
        """Plain data for msgpack or JSON.

        The piles are the state's own tuples, not copies: msgpack and JSON
        write a tuple as an array, so the bytes are those of lists, and the
        server packs a snapshot after every move. Decoded data holds lists;
        compare it with :meth:`from_data` (or pack both sides), not with ``==``
        on this map.
        """
        return {
            "variant": self.variant,
            "piles": self.piles,
            "passes": self.passes,
            "moves": self.moves,
            "deals": self.deals,
        }

    @classmethod
    def from_data(cls, data: object) -> State:
        """The inverse of :meth:`to_data`; raises :class:`StateDataError`."""
        if not isinstance(data, Mapping):
            raise StateDataError("state data must be a map")
        try:
            variant, piles = data["variant"], data["piles"]
            passes, moves, deals = data["passes"], data["moves"], data["deals"]
        except (KeyError, TypeError) as exc:
            raise StateDataError(f"state data lacks a field: {exc}") from None
        if not isinstance(variant, str) or not isinstance(piles, list | tuple):
            raise StateDataError("state data has wrong types")
        # type() rather than isinstance(): a bool is an int to Python, not to the wire.
        if not all(type(n) is int and n >= 0 for n in (passes, moves, deals)):
            raise StateDataError("passes, moves and deals must be non-negative integers")
        rows: list[tuple[int, ...]] = []
        for pile in piles:
            if not isinstance(pile, list | tuple) or not all(
                type(card) is int and 0 <= card < 104 for card in pile
            ):
                raise StateDataError("a pile must be a list of card ids")
            rows.append(tuple(pile))
        return cls(variant, tuple(rows), passes, moves, deals)
