"""Grand Duchess (Duchess de Luynes) and Parisienne: a reserve built blind.

Each deal puts one card on each of four tableau piles and two face down on a
reserve that stays unusable until the stock runs out; then the reserve turns
face up and every card in it is available. Three redeals gather the tableau
and the reserve into a new stock; the deals after the third make no reserve.
Eight foundations per game: each suit has one ace foundation built up to K
and one king foundation built down to A.

Rulings (RULES.md, and ``docs/rules/duchess.md``): the new stock deals pile 4
bottom to top, then piles 3, 2 and 1, then the reserve in the order it was
dealt; a redeal needs at least one card to gather.
"""

from __future__ import annotations

from protocol.layout import Fan, PileSpec, Role
from protocol.moves import Move, MoveKind
from server.engine.foundations import Foundation, FoundationSet, sequence
from server.engine.game import DEAL, REDEAL, Game
from server.engine.state import State

__all__ = ["GrandDuchess", "Parisienne"]

#: Ace foundations of suits 0..3 (A up to K), then king foundations (K down to A).
FOUNDATIONS = tuple(Foundation(suit, sequence(1, 1, 13)) for suit in range(4)) + tuple(
    Foundation(suit, sequence(13, -1, 13)) for suit in range(4)
)
TABLEAU_PILES = 4
#: Cards a deal puts face down on the reserve before the last redeal.
RESERVE_PER_DEAL = 2


class GrandDuchess(Game):
    """Four tableau piles, a face-down reserve, ace and king foundations; three redeals."""

    id = "grand-duchess"
    title = "Grand Duchess"
    summary = "Deal four to the tableau and two to a blind reserve; aces up, kings down."
    decks = 2
    redeals = 3
    #: A redeal can only be made with the stock out, when the reserve is face up too: it
    #: gathers face-up cards in the ruled order, and every later deal takes them from
    #: that stock, to the tableau or the reserve.
    redeal_gathers_face_up = True

    def __init__(self) -> None:
        super().__init__()
        self.stock, self.reserve = self.index["s"], self.index["r"]
        self.tableau = self.indexes(Role.TABLEAU)
        self.foundations = self.indexes(Role.FOUNDATION)
        self.foundation_set = FoundationSet(zip(self.foundations, FOUNDATIONS, strict=True))

    def pile_specs(self) -> list[PileSpec]:
        """Foundations across the top, the tableau below, then stock and reserve."""
        specs = [PileSpec("s", Role.STOCK, 2, 0, label="Stock")]
        specs += [
            PileSpec(f"t{n}", Role.TABLEAU, 1, n + 1, Fan.DOWN, f"Pile {n}")
            for n in range(1, TABLEAU_PILES + 1)
        ]
        specs.append(PileSpec("r", Role.RESERVE, 2, 1, Fan.RIGHT, "Reserve"))
        specs += [
            PileSpec(f"f{n}", Role.FOUNDATION, 0, n - 1, label=foundation.label)
            for n, foundation in enumerate(FOUNDATIONS, 1)
        ]
        return specs

    def lay_out(self, pack: list[int]) -> State:
        """The pack becomes the stock and the first deal is made from it.

        Cards taken out before the shuffle (Parisienne's) start ``f1``..``f8``.
        """
        piles = self.empty_piles()
        for index, base in zip(self.foundations, self.taken_out, strict=False):
            piles[index] = (base,)
        piles[self.stock] = self.stock_from(pack)
        self._deal(piles, passes=0)
        return State(self.id, tuple(piles))

    def generate(self, state: State) -> list[Move]:
        """Tableau tops, then reserve cards by position, then deal or redeal."""
        piles = state.piles
        need = self.foundation_set.needs(piles)
        moves = [
            self.card_move(src, dst)
            for src in self.tableau
            if piles[src]
            for dst in need.get(piles[src][-1] % 52, ())
        ]
        if piles[self.stock]:
            moves.append(DEAL)
            return moves
        moves += [
            self.card_move(self.reserve, dst, position)
            for position, card in enumerate(piles[self.reserve])
            for dst in need.get(card % 52, ())
        ]
        if state.passes < self.redeals and self._anything_to_redeal(state):
            moves.append(REDEAL)
        return moves

    def perform(self, state: State, move: Move) -> State:
        piles = list(state.piles)
        if move.kind is MoveKind.DEAL:
            self._deal(piles, state.passes)
            return self.replace_piles(state, piles)
        if move.kind is MoveKind.REDEAL:
            gathered = [card for index in reversed(self.tableau) for card in piles[index]]
            gathered += piles[self.reserve]
            for index in (*self.tableau, self.reserve):
                piles[index] = ()
            piles[self.stock] = self.stock_from(gathered)
            return self.replace_piles(state, piles, passes=state.passes + 1)
        assert move.src is not None and move.dst is not None
        src, dst = self.index[move.src], self.index[move.dst]
        pile = piles[src]
        at = len(pile) - 1 if move.index is None else move.index
        piles[src] = pile[:at] + pile[at + 1 :]
        piles[dst] = (*piles[dst], pile[at])
        return self.replace_piles(state, piles)

    def hidden(self, state: State) -> frozenset[int]:
        """The stock always; the reserve until the stock is out."""
        if state.piles[self.stock]:
            return frozenset({self.stock, self.reserve})
        return frozenset({self.stock})

    def built_foundations(self) -> FoundationSet:
        return self.foundation_set

    def count_home(self, state: State) -> int:
        return self.foundation_set.home(state.piles)

    def target(self) -> int:
        return self.foundation_set.size

    def explain(self, state: State, move: Move) -> str:
        """The base reasons, plus the ones only this family has."""
        if move.kind is MoveKind.REDEAL:
            if state.passes < self.redeals and not self._stock(state):
                return "there is nothing to redeal"
            return super().explain(state, move)
        if move.kind is not MoveKind.MOVE or move.src not in self.index:
            return super().explain(state, move)
        src = self.index[move.src]
        pile = state.piles[src]
        if src not in (*self.tableau, self.reserve):
            return "cards move only from the tableau and the reserve"
        if move.dst in self.index and self.index[move.dst] not in self.foundations:
            return "cards go only to the foundations"
        if src in self.tableau and move.index is not None and pile:
            return f"only the top card of {move.src} is available"
        if src == self.reserve and move.index is None and pile and src not in self.hidden(state):
            return "name the reserve card by its position, e.g. r:0>f1"
        return super().explain(state, move)

    # ------------------------------------------------------------------

    def _deal(self, piles: list[tuple[int, ...]], passes: int) -> None:
        """One card to each tableau pile, left to right, then two to the reserve.

        After the last redeal no reserve is made. A short stock deals in the
        same order until it is out.
        """
        targets = self.tableau
        if passes < self.redeals:
            targets += (self.reserve,) * RESERVE_PER_DEAL
        stock = piles[self.stock]
        for target in targets:
            if not stock:
                break
            piles[target] = (*piles[target], stock[-1])
            stock = stock[:-1]
        piles[self.stock] = stock

    def _anything_to_redeal(self, state: State) -> bool:
        return any(state.piles[index] for index in (*self.tableau, self.reserve))


class Parisienne(GrandDuchess):
    """Grand Duchess with one ace and one king of each suit laid out to start."""

    id = "parisienne"
    title = "Parisienne"
    summary = "Grand Duchess with an ace and a king of each suit already on the foundations."
    #: Deck 0's bases, in foundation order: the aces of f1-f4, the kings of f5-f8.
    taken_out = tuple(foundation.kinds[0] for foundation in FOUNDATIONS)
