"""Royal Cotillion and its kin: foundations built by suit in twos with wrap.

An ace foundation builds A-3-5-7-9-J-K-2-4-6-8-10-Q and a deuce foundation
2-4-6-8-10-Q-A-3-5-7-9-J-K, each in one suit. The games differ in whether
the foundations start laid out, the ladies' and lords' sides, and redeals.
Contradance, a cousin, builds down from fives and up from sixes instead.
"""

from __future__ import annotations

from server.engine.foundations import Foundation, sequence
from server.engine.stockwaste import FoundationSpot, Refill, StockWasteGame

__all__ = ["Contradance", "Gavotte", "OddAndEven", "RoyalCotillion"]

ACE_UP_BY_TWOS = sequence(1, 2, 13)
DEUCE_UP_BY_TWOS = sequence(2, 2, 13)


def _twos_in_columns(laid_out: bool) -> tuple[FoundationSpot, ...]:
    """Aces down the left edge, deuces down the right, one suit a row."""
    aces = tuple((Foundation(suit, ACE_UP_BY_TWOS), suit, 0, laid_out) for suit in range(4))
    deuces = tuple((Foundation(suit, DEUCE_UP_BY_TWOS), suit, 9, laid_out) for suit in range(4))
    return aces + deuces


class RoyalCotillion(StockWasteGame):
    """Ladies' side of 12, lords' side of 16, foundations laid out, no redeal."""

    id = "royal-cotillion"
    title = "Royal Cotillion"
    summary = "Build up in twos from laid-out aces and deuces; one pass through the stock."
    foundations = _twos_in_columns(laid_out=True)
    tableau_columns, tableau_depth, tableau_label, tableau_at = 4, 3, "Ladies", (0, 1)
    reserve_rows, reserve_columns, reserve_label, reserve_at = 4, 4, "Lords", (0, 5)
    refill = Refill.WASTE_THEN_STOCK
    stock_at = (5, 5)
    redeals = 0


class Gavotte(RoyalCotillion):
    """Royal Cotillion with foundations started in play and one redeal.

    Ruling (RULES.md): any available ace or deuce starts the foundation of
    its suit; the waste may be turned over once, order preserved.
    """

    id = "gavotte"
    title = "Gavotte"
    summary = "Royal Cotillion, but aces and deuces start the foundations in play; one redeal."
    foundations = _twos_in_columns(laid_out=False)
    redeals = 1


class OddAndEven(StockWasteGame):
    """A 3x3 reserve refilled from waste or stock; foundations start in play."""

    id = "odd-and-even"
    title = "Odd and Even"
    summary = "Nine-card reserve; aces and deuces start foundations built in twos; one redeal."
    foundations = tuple(
        (Foundation(suit, ranks), 0, suit + 4 * column, False)
        for column, ranks in enumerate((ACE_UP_BY_TWOS, DEUCE_UP_BY_TWOS))
        for suit in range(4)
    )
    reserve_rows, reserve_columns, reserve_at = 3, 3, (1, 2)
    refill = Refill.WASTE_THEN_STOCK
    stock_at = (4, 2)
    redeals = 1


class Contradance(StockWasteGame):
    """Sixteen laid-out foundations: fives down to A then K, sixes up to Q."""

    id = "contradance"
    title = "Contradance"
    summary = "Fives build down to the king, sixes up to the queen, from the waste alone."
    foundations = tuple(
        (Foundation(suit, ranks), row, suit + 4 * copy, True)
        for row, ranks in enumerate((sequence(5, -1, 6), sequence(6, 1, 7)))
        for copy in range(2)
        for suit in range(4)
    )
    stock_at = (2, 3)
    redeals = 1
