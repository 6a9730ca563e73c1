"""The solver's knowledge of Grand Duchess and Parisienne."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

from protocol.moves import Move, MoveKind
from server.engine.duchess import FOUNDATIONS, GrandDuchess
from server.engine.solver.base import KIND, Family, Key, foundation_places, foundation_slots
from server.engine.solver.proofs import stuck
from server.engine.state import State

__all__ = ["DUCHESS_BEAM_SHARE", "DuchessFamily"]

#: The beam's share of a solve's limits in Grand Duchess and Parisienne.
DUCHESS_BEAM_SHARE = 0.15


class DuchessFamily(Family):
    """Grand Duchess and Parisienne."""

    def __init__(self, game: GrandDuchess) -> None:
        super().__init__(game)
        self.duchess = game
        founded = [
            (pile, found.kinds) for pile, found in zip(game.foundations, FOUNDATIONS, strict=True)
        ]
        self.slots = foundation_slots(founded)
        self.sequences = tuple(found.kinds for found in FOUNDATIONS)
        self.places = foundation_places(self.sequences)
        # Most deals the depth-first phases leave unknown here are won by a beam, and
        # each phase wins deals the others do not. Of the shares tried, this one won
        # as many of the hardest deals of 1,000 as no beam, or more, at every limit
        # but one (docs/engine.md, "Beams in the Duchess games").
        self.beam_share = DUCHESS_BEAM_SHARE
        self.root_passes = -1  # no search begun: keys hold the whole stock
        self._tableau = itemgetter(*game.tableau)
        self._foundations = itemgetter(*game.foundations)

    def begin(self, root: State) -> None:
        self.root_passes = root.passes

    def key(self, state: State) -> Key:
        """Stock, tableau, reserve (card kinds), foundation heights and the pass.

        In the root's own pass the stock only ever loses its top cards (the
        deals), so its size says what it holds.
        """
        piles = state.piles
        game = self.duchess
        stock = piles[game.stock]
        return (
            len(stock) if state.passes == self.root_passes else bytes(stock).translate(KIND),
            tuple([bytes(pile).translate(KIND) for pile in self._tableau(piles)]),
            bytes(piles[game.reserve]).translate(KIND),
            bytes(map(len, self._foundations(piles))),
            state.passes,
        )

    def won(self, state: State) -> bool:
        """Every card home: none left in the stock, the reserve or the tableau."""
        piles = state.piles
        game = self.duchess
        return not (piles[game.stock] or piles[game.reserve] or any(self._tableau(piles)))

    def dead(self, state: State) -> bool:
        """In the last pass a tableau card leaves only from the top, only home."""
        if state.passes < self.game.redeals:
            return False
        piles = state.piles
        game = self.duchess
        return stuck(
            (piles[t] for t in game.tableau),
            set(bytes(piles[game.stock] + piles[game.reserve]).translate(KIND)),
            [len(piles[f]) for f in game.foundations],
            self.sequences,
            self.places,
        )

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        if state.passes < self.game.redeals:
            return None  # a card taken home now is missing from the next stock
        piles = state.piles
        index = self.game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            pile = piles[index[move.src]]
            card = pile[-1] if move.index is None else pile[move.index]
            dst = index[move.dst]
            if self.only_slot_left(self.slots[card % 52], lambda f: len(piles[f]), dst):
                return move
        return None
