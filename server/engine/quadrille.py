"""Quadrille (Captive Queens): one deck, twelve foundations, two redeals.

Four centre piles hold one queen each; four compass piles build down by suit
from 5 to A then K; four corner piles build up by suit from 6 to J. Every
card has exactly one place, so the only choice is when to deal.
"""

from __future__ import annotations

from server.engine.foundations import Foundation, sequence
from server.engine.stockwaste import StockWasteGame

__all__ = ["Quadrille"]

CORNERS = ((0, 0), (0, 4), (4, 0), (4, 4))
COMPASS = ((0, 2), (2, 0), (2, 4), (4, 2))
CENTRE = ((1, 2), (2, 1), (2, 3), (3, 2))


class Quadrille(StockWasteGame):
    """Queens in the centre, fives down on the compass points, sixes up in the corners."""

    id = "quadrille"
    title = "Quadrille"
    summary = "One deck: queens to the centre, fives build down, sixes build up; two redeals."
    decks = 1
    foundations = (
        tuple((Foundation(s, (12,)), *CENTRE[s], False) for s in range(4))
        + tuple((Foundation(s, sequence(5, -1, 6)), *COMPASS[s], False) for s in range(4))
        + tuple((Foundation(s, sequence(6, 1, 6)), *CORNERS[s], False) for s in range(4))
    )
    stock_at = (5, 1)
    redeals = 2
