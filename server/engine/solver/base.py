"""What the solver knows of every family: keys, safe moves, dead ends (the base class).

Each family (:mod:`.stockwaste`, :mod:`.duchess`, :mod:`.parade`) subclasses
:class:`Family`; :mod:`.search` runs the search over whichever it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from protocol.moves import Move, MoveKind
from server.engine.game import Game
from server.engine.state import State

__all__ = [
    "ACTION_ORDER",
    "KIND",
    "Family",
    "Key",
    "Slots",
    "foundation_places",
    "foundation_slots",
]

#: Card id -> card kind (``id % 52``) as a bytes translation table, for keys.
KIND = bytes(card % 52 for card in range(256))
#: Move kinds in the order the search tries them, after card moves.
ACTION_ORDER = {MoveKind.SWAP: 0, MoveKind.DEAL: 1, MoveKind.DEAL_REVERSED: 2, MoveKind.REDEAL: 3}

Key = Hashable
#: Card kind -> every (foundation pile, height, sequence) where it is wanted one day.
Slots = dict[int, tuple[tuple[int, int, tuple[int, ...]], ...]]


def foundation_slots(
    foundations: Sequence[tuple[int, tuple[int, ...]]],
) -> dict[int, tuple[tuple[int, int, tuple[int, ...]], ...]]:
    """Card kind -> every (foundation pile, height, sequence) where it is wanted one day."""
    slots: dict[int, list[tuple[int, int, tuple[int, ...]]]] = {}
    for pile, kinds in foundations:
        for height, kind in enumerate(kinds):
            slots.setdefault(kind, []).append((pile, height, kinds))
    return {kind: tuple(found) for kind, found in slots.items()}


def foundation_places(sequences: Sequence[Sequence[int]]) -> list[tuple[tuple[int, int], ...]]:
    """Card kind (0-51) -> every (foundation, position) where it is wanted, for :func:`.stuck`."""
    places: list[list[tuple[int, int]]] = [[] for _ in range(52)]
    for foundation, kinds in enumerate(sequences):
        for position, kind in enumerate(kinds):
            places[kind].append((foundation, position))
    return [tuple(found) for found in places]


class Family:
    """The solver's knowledge of one variant family; one instance per variant."""

    def __init__(self, game: Game) -> None:
        self.game = game
        #: The share of a solve's limits its beam gets (:mod:`.search`): none where beams
        #: were measured to decide fewer deals than the depth-first phases in those limits.
        self.beam_share = 0.0

    def begin(self, root: State) -> None:
        """Called once before a search from ``root``: what keys may take as known."""

    def key(self, state: State) -> Key:
        """The position with copies of a card merged; equal keys have equal futures."""
        return (tuple(bytes(pile).translate(KIND) for pile in state.piles), state.passes)

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        """A move among ``moves`` that no winning line can need to avoid, if any."""
        return None

    def dead(self, state: State) -> bool:
        """Whether the position can be seen, cheaply, to be lost whatever is played."""
        return False

    def order(self, state: State, moves: Sequence[Move]) -> list[Move]:
        """The moves in the order the search tries them: card moves first, actions last."""
        return sorted(moves, key=lambda m: -1 if m.kind is MoveKind.MOVE else ACTION_ORDER[m.kind])

    def won(self, state: State) -> bool:
        return self.game.count_home(state) == self.game.target()

    def progress(self, state: State) -> int:
        """How promising the position looks, higher better, for the beam (:mod:`.beam`)
        to keep the best of those it reached: by default the cards home."""
        return self.game.count_home(state)

    @staticmethod
    def only_slot_left(
        slots: Sequence[tuple[int, int, tuple[int, ...]]],
        heights: Callable[[int], int],
        dst: int,
    ) -> bool:
        """Whether a card going to ``dst`` fills the last open place of its kind.

        Open places of the kind other than ``dst``'s must be on foundations
        that build the same sequence and stand at the same height now: those
        are interchangeable with ``dst``, and which of them gets which copy
        makes no difference. Any other open place may want this very copy
        later, so the move is then a choice, not a safe move.
        """
        height = heights(dst)
        sequence: tuple[int, ...] | None = None
        for pile, _, kinds in slots:
            if pile == dst:
                sequence = kinds
        for pile, at, kinds in slots:
            if pile == dst:
                continue
            other = heights(pile)
            if other > at:
                continue  # that place is filled already
            if kinds != sequence or other != height or at != height:
                return False
        return True
