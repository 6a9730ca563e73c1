"""Royal Rendezvous: twelve laid-out foundations and a sixteen-card reserve.

Upper aces build by ones to K, lower aces by twos to K, deuces by twos to Q.
Reserve gaps take the waste top; with no waste card they wait for the next
card dealt (ruling in RULES.md).
"""

from __future__ import annotations

from typing import ClassVar

from server.engine.foundations import Foundation, sequence
from server.engine.state import Piles
from server.engine.stockwaste import FoundationSpot, Refill, StockWasteGame

__all__ = ["RoyalRendezvous", "RoyalRendezvousSolSuite"]

KING = 13
UPPER_ACES = tuple((Foundation(suit, sequence(1, 1, 13)), 0, suit + 2, True) for suit in range(4))
LOWER_ACES = tuple((Foundation(suit, sequence(1, 2, 7)), 1, suit + 2, True) for suit in range(4))
DEUCES = tuple(
    (Foundation(suit, sequence(2, 2, 6)), 1, (0, 1, 6, 7)[suit], True) for suit in range(4)
)


class RoyalRendezvous(StockWasteGame):
    """One pass through the stock; reserve of two rows of eight."""

    id = "royal-rendezvous"
    title = "Royal Rendezvous"
    summary = "Aces build by ones and by twos, deuces by twos; sixteen-card reserve, no redeal."
    foundations: ClassVar[tuple[FoundationSpot, ...]] = UPPER_ACES + LOWER_ACES + DEUCES
    reserve_rows, reserve_columns, reserve_at = 2, 8, (2, 0)
    refill = Refill.WASTE_THEN_NEXT_DEAL
    stock_at = (4, 0)
    redeals = 0


class RoyalRendezvousSolSuite(RoyalRendezvous):
    """An upper-ace foundation takes its K only after its lower-ace foundation is done."""

    id = "royal-rendezvous-solsuite"
    title = "Royal Rendezvous (SolSuite)"
    summary = "Royal Rendezvous where an upper ace takes its king only after the lower ace's."

    def __init__(self) -> None:
        super().__init__()
        self._upper = tuple(self.index[f"f{n}"] for n in range(1, 5))
        self._lower = tuple(self.index[f"f{n}"] for n in range(5, 9))

    def kings_blocked(self, piles: Piles) -> set[int]:
        """Upper-ace foundations that may not take their king yet."""
        return {
            upper
            for upper, lower in zip(self._upper, self._lower, strict=True)
            if len(piles[lower]) < 7
        }

    def foundation_needs(self, piles: Piles) -> dict[int, list[int]]:
        need = super().foundation_needs(piles)
        blocked = self.kings_blocked(piles)
        for suit in range(4):
            king = 13 * suit + KING - 1
            if king in need:
                need[king] = [f for f in need[king] if f not in blocked]
        return need
