"""The solver's knowledge of the Royal Parade games."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.cards import card_rank, kind_of
from protocol.moves import DISCARD_PILE, Move, MoveKind
from server.engine.parade import FULL, ROW_RANKS, RoyalParade
from server.engine.solver.base import ACTION_ORDER, KIND, Family, Key
from server.engine.state import Piles, State

__all__ = ["ParadeFamily"]


class ParadeFamily(Family):
    """Royal Parade, Bergholt's Royal Parade and Virginia Reel."""

    def __init__(self, game: RoyalParade) -> None:
        super().__init__(game)
        self.parade = game
        # Card kind -> (chain, height): the chain is a row and suit, whose two
        # foundations take its kinds in height order. Aces have no chain.
        self.chain: dict[int, tuple[int, int]] = {}
        for row, ranks in enumerate(ROW_RANKS):
            for height, rank in enumerate(ranks):
                for suit in range(4):
                    self.chain[kind_of(suit, rank)] = (row * 4 + suit, height)

    def dead(self, state: State) -> bool:
        """Both copies of a card buried in depots under higher cards of their own chain.

        A depot card leaves only from the top, and only home (or, a base
        card, into a space; an ace, to the discard). A card of height ``h``
        covered by a card of the same row and suit with a greater height
        can only be uncovered once that card goes home, which needs a
        foundation of that chain past height ``h``, which needs a copy of
        the covered card. If both copies are covered so, neither foundation
        of the chain can ever pass ``h``.
        """
        piles = state.piles
        chain = self.chain
        covered: set[int] = set()
        for depot in self.parade.depots:
            pile = piles[depot]
            if len(pile) < 2:
                continue
            above: dict[int, int] = {}
            for card in reversed(pile):
                kind = card % 52
                link = chain.get(kind)
                if link is None:
                    continue
                which, height = link
                if above.get(which, -1) > height:
                    if kind in covered:
                        return True
                    covered.add(kind)
                elif above.get(which, -1) < height:
                    above[which] = height
        return False

    def key(self, state: State) -> Key:
        piles = state.piles
        game = self.parade
        rows = tuple(
            tuple(sorted(bytes(piles[spot]).translate(KIND) for spot in spots))
            for spots in game.rows
        )
        depots = tuple(bytes(piles[d]).translate(KIND) for d in game.depots)
        stock = piles[game.stock]
        if not stock:
            depots = tuple(sorted(depots))  # no deal left: depots are interchangeable
        return (rows, depots, bytes(stock).translate(KIND))

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        piles = state.piles
        game = self.parade
        index = game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            if move.dst == DISCARD_PILE:
                return move  # an ace is good for nothing but blocking
            dst = index[move.dst]
            pile = piles[dst]
            if not pile:
                continue  # a base card into a space: a choice of which card gets the space
            if self._only_foundation_left(piles, dst):
                return move
        return None

    def _only_foundation_left(self, piles: Piles, dst: int) -> bool:
        """Whether the other foundation of this row and suit no longer needs this card's kind.

        Each row and suit has two foundations (one per deck's base card). The
        card is safe to build if the other one is past it, or stands at the
        same height (the two are then interchangeable); if it is lower or
        not yet founded, it may need this very copy later.
        """
        game = self.parade
        height = len(piles[dst])
        suit_base = piles[dst][0] % 52
        for spot in game.rows[game.row_of[dst]]:
            if spot == dst:
                continue
            other = piles[spot]
            if other and other[0] % 52 == suit_base:  # founded: it holds this row's base
                return len(other) >= height
        return False

    def order(self, state: State, moves: Sequence[Move]) -> list[Move]:
        """Builds first, then base cards into spaces, then swaps, then the deals.

        A card that could go into any of several spaces of one row is tried
        in the first only: the key sorts a row's spots, so the others lead
        to the same position.
        """
        piles = state.piles
        index = self.game.index
        row_of = self.parade.row_of
        spaces: set[tuple[str | None, int | None, int]] = set()
        ranked: list[tuple[int, Move]] = []
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                ranked.append((2 + ACTION_ORDER[move.kind], move))
                continue
            assert move.dst is not None
            dst = index[move.dst]
            if piles[dst]:
                ranked.append((0, move))
                continue
            row = row_of.get(dst)
            if row is not None:
                space = (move.src, move.index, row)
                if space in spaces:
                    continue
                spaces.add(space)
            ranked.append((1, move))
        ranked.sort(key=lambda pair: pair[0])
        return [move for _, move in ranked]

    def won(self, state: State) -> bool:
        piles = state.piles
        game = self.parade
        return all(len(piles[spot]) == FULL for spot in game.parade) and all(
            card_rank(piles[spot][0]) == ROW_RANKS[game.row_of[spot]][0] for spot in game.parade
        )
