"""Games of a stock dealt one card at a time to a waste, with foundations.

Royal Cotillion, Gavotte, Odd and Even, Contradance, Royal Rendezvous and
Quadrille all share this shape and differ only in settings:

* which foundations there are and whether their base cards start laid out;
* an optional tableau of overlapping columns (Royal Cotillion's ladies' side),
  where only each column's top card is available and no gap is refilled;
* an optional reserve grid, every card available, whose gaps are refilled
  automatically (:class:`Refill` says from where);
* how many times the waste may be turned over as a new stock.

Cards move only from the waste, tableau and reserve to the foundations.
"""

from __future__ import annotations

import enum
from typing import ClassVar

from protocol.layout import Fan, PileSpec, Role
from protocol.moves import Move, MoveKind
from server.engine.foundations import Foundation, FoundationSet
from server.engine.game import DEAL, REDEAL, Game
from server.engine.state import Piles, State

__all__ = ["FoundationSpot", "Refill", "StockWasteGame"]


class Refill(enum.Enum):
    """Where a reserve gap gets its card."""

    #: At once from the waste top, else from the stock; if both are empty the gap stays.
    WASTE_THEN_STOCK = "waste-then-stock"
    #: At once from the waste top, or from the stock while nothing has been
    #: dealt yet (no waste exists); once dealing has begun, a gap that finds
    #: the waste empty waits, and the next card dealt fills it instead of
    #: going to the waste.
    WASTE_THEN_NEXT_DEAL = "waste-then-next-deal"


#: A foundation, where it sits (row, col) and whether its base starts laid out.
FoundationSpot = tuple[Foundation, int, int, bool]


class StockWasteGame(Game):
    """Shared rules of the stock-and-waste dance games."""

    foundations: ClassVar[tuple[FoundationSpot, ...]]
    tableau_columns: ClassVar[int] = 0
    tableau_depth: ClassVar[int] = 0
    tableau_label: ClassVar[str] = ""
    reserve_rows: ClassVar[int] = 0
    reserve_columns: ClassVar[int] = 0
    reserve_label: ClassVar[str] = "Reserve"
    refill: ClassVar[Refill] = Refill.WASTE_THEN_STOCK
    #: A redeal turns the waste, every card of which was dealt face up, over into the
    #: stock, order kept; after it no card joins the stock.
    redeal_gathers_face_up = True
    #: Grid cell of the reserve's top-left card and of the tableau's first column.
    reserve_at: ClassVar[tuple[int, int]] = (0, 0)
    tableau_at: ClassVar[tuple[int, int]] = (0, 0)
    stock_at: ClassVar[tuple[int, int]] = (4, 0)

    def __init__(self) -> None:
        super().__init__()
        self.stock, self.waste = self.index["s"], self.index["w"]
        self.foundation_set = FoundationSet(
            (self.index[f"f{n}"], spot[0]) for n, spot in enumerate(self.foundations, 1)
        )
        self.tableau = self.indexes(Role.TABLEAU)
        self.reserve = self.indexes(Role.RESERVE)
        # Sources in the order moves are listed: waste, tableau, reserve.
        self.sources = (self.waste, *self.tableau, *self.reserve)

    @classmethod
    def laid_out_bases(cls) -> tuple[int, ...]:
        """Card ids of the bases that start on the foundations, in foundation order.

        The first foundation needing a card gets deck 0's copy, the second deck 1's.
        """
        kinds = [f.kinds[0] for f, _, _, laid in cls.foundations if laid]
        return tuple(kind + 52 * kinds[:i].count(kind) for i, kind in enumerate(kinds))

    def pack(self) -> list[int]:
        out = set(self.laid_out_bases())
        return [card for card in range(52 * self.decks) if card not in out]

    def pile_specs(self) -> list[PileSpec]:
        row, col = self.stock_at
        specs = [
            PileSpec("s", Role.STOCK, row, col, label="Stock"),
            PileSpec("w", Role.WASTE, row, col + 1, label="Waste"),
        ]
        for n, (foundation, f_row, f_col, _) in enumerate(self.foundations, 1):
            specs.append(PileSpec(f"f{n}", Role.FOUNDATION, f_row, f_col, label=foundation.label))
        t_row, t_col = self.tableau_at
        for n in range(self.tableau_columns):
            specs.append(
                PileSpec(f"t{n + 1}", Role.TABLEAU, t_row, t_col + n, Fan.DOWN, self.tableau_label)
            )
        r_row, r_col = self.reserve_at
        for n in range(self.reserve_rows * self.reserve_columns):
            row_n, col_n = divmod(n, self.reserve_columns)
            specs.append(
                PileSpec(
                    f"r{n + 1}",
                    Role.RESERVE,
                    r_row + row_n,
                    r_col + col_n,
                    label=self.reserve_label,
                )
            )
        return specs

    def lay_out(self, pack: list[int]) -> State:
        """Tableau row by row, then the reserve row by row, then the stock."""
        piles = self.empty_piles()
        laid = [n for n, spot in enumerate(self.foundations, 1) if spot[3]]
        for n, base in zip(laid, self.laid_out_bases(), strict=True):
            piles[self.index[f"f{n}"]] = (base,)
        cards = iter(pack)
        columns: list[list[int]] = [[] for _ in self.tableau]
        for _ in range(self.tableau_depth):
            for column in columns:
                column.append(next(cards))
        for index, column in zip(self.tableau, columns, strict=True):
            piles[index] = tuple(column)
        for index in self.reserve:
            piles[index] = (next(cards),)
        piles[self.stock] = self.stock_from(list(cards))
        return State(self.id, tuple(piles))

    def generate(self, state: State) -> list[Move]:
        piles = state.piles
        need = self.foundation_needs(piles)
        moves = [
            self.card_move(src, dst)
            for src in self.sources
            if piles[src]
            for dst in need.get(piles[src][-1] % 52, ())
        ]
        if piles[self.stock]:
            moves.append(DEAL)
        elif piles[self.waste] and state.passes < self.redeals:
            moves.append(REDEAL)
        return moves

    def perform(self, state: State, move: Move) -> State:
        piles = list(state.piles)
        stock, waste = self.stock, self.waste
        if move.kind is MoveKind.DEAL:
            card, piles[stock] = piles[stock][-1], piles[stock][:-1]
            gap = self._waiting_gap(piles)
            target = waste if gap is None else gap
            piles[target] = (*piles[target], card)
            return self.replace_piles(state, piles)
        if move.kind is MoveKind.REDEAL:
            piles[stock], piles[waste] = self.stock_from(piles[waste]), ()
            return self.replace_piles(state, piles, passes=state.passes + 1)
        assert move.src is not None and move.dst is not None
        src, dst = self.index[move.src], self.index[move.dst]
        card, piles[src] = piles[src][-1], piles[src][:-1]
        piles[dst] = (*piles[dst], card)
        if src in self.reserve:
            self._fill_gap(piles, src, dealt=state.deals > 0)
        return self.replace_piles(state, piles)

    def foundation_needs(self, piles: Piles) -> dict[int, list[int]]:
        """Card kind -> foundations that take it now."""
        return self.foundation_set.needs(piles)

    def _fill_gap(self, piles: list[tuple[int, ...]], gap: int, *, dealt: bool) -> None:
        waits_for_deal = self.refill is Refill.WASTE_THEN_NEXT_DEAL and dealt
        if piles[self.waste]:
            source = self.waste
        elif piles[self.stock] and not waits_for_deal:
            source = self.stock
        else:
            return
        piles[gap], piles[source] = (piles[source][-1],), piles[source][:-1]

    def _waiting_gap(self, piles: list[tuple[int, ...]]) -> int | None:
        """The first reserve gap a dealt card must fill, if this game does so."""
        if self.refill is Refill.WASTE_THEN_NEXT_DEAL:
            for index in self.reserve:
                if not piles[index]:
                    return index
        return None

    def built_foundations(self) -> FoundationSet:
        return self.foundation_set

    def count_home(self, state: State) -> int:
        return self.foundation_set.home(state.piles)

    def target(self) -> int:
        return self.foundation_set.size
