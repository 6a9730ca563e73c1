"""What the solver knows of every family: keys, safe moves, dead ends (the base class).

Each family (:mod:`.stockwaste`, :mod:`.duchess`, :mod:`.parade`) subclasses
:class:`Family`; :mod:`.search` runs the search over whichever it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from protocol.moves import Move, MoveKind
from server.engine.game import Game
from server.engine.state import Piles, State

__all__ = ["ACTION_ORDER", "KIND", "Family", "Key", "Slots", "foundation_slots"]

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


class Family:
    """The solver's knowledge of one variant family; one instance per variant."""

    def __init__(self, game: Game) -> None:
        self.game = game

    def key(self, state: State) -> Key:
        """The position with copies of a card merged; equal keys have equal futures."""
        return (tuple(bytes(pile).translate(KIND) for pile in state.piles), state.passes)

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        """A move among ``moves`` that no winning line can need to avoid, if any."""
        return None

    def dead(self, state: State) -> bool:
        """Whether the position can be seen, cheaply, to be lost whatever is played."""
        return False

    def buried(
        self,
        piles: Piles,
        stacks: Sequence[int],
        slots: dict[int, tuple[tuple[int, int, tuple[int, ...]], ...]],
    ) -> bool:
        """Every copy of some kind not yet home lies under a card that must wait for that kind.

        ``stacks`` are piles whose cards, for the rest of the game, leave
        only from the top and only for a foundation (cards may still be
        dealt onto them). A card ``y`` *waits for* kind ``x`` when every open
        place of ``y``'s kind on the foundations has ``x`` still to come
        below it on that foundation. A card under ``y`` leaves only after
        ``y``, which leaves only after some ``x`` is home; if each copy of
        ``x`` not yet home lies under such a card, no ``x`` ever gets home
        and no foundation that needs one is ever finished: the position is
        lost. (The number of open places of a kind is the number of its
        copies not yet home, since a won game has every card home.)
        """
        buried: dict[int, int] = {}
        waits: dict[int, frozenset[int]] = {}
        for stack in stacks:
            pile = piles[stack]
            if len(pile) < 2:
                continue
            above: set[int] = set()
            for card in reversed(pile):
                kind = card % 52
                if kind in above:
                    buried[kind] = buried.get(kind, 0) + 1
                wanted = waits.get(kind)
                if wanted is None:
                    wanted = waits[kind] = self._waits_for(piles, slots[kind])
                above |= wanted
        for kind, count in buried.items():
            open_places = sum(1 for pile, at, _ in slots[kind] if len(piles[pile]) <= at)
            if count >= open_places > 0:
                return True
        return False

    @staticmethod
    def _waits_for(
        piles: Piles, places: Sequence[tuple[int, int, tuple[int, ...]]]
    ) -> frozenset[int]:
        """The kinds that must go home before a card with these places can (see :meth:`buried`)."""
        common: set[int] | None = None
        for pile, at, kinds in places:
            height = len(piles[pile])
            if height > at:
                continue  # that place is filled already
            below = set(kinds[height:at])
            common = below if common is None else common & below
            if not common:
                return frozenset()
        return frozenset(common or ())

    def order(self, state: State, moves: Sequence[Move]) -> list[Move]:
        """The moves in the order the search tries them: card moves first, actions last."""
        return sorted(moves, key=lambda m: -1 if m.kind is MoveKind.MOVE else ACTION_ORDER[m.kind])

    def won(self, state: State) -> bool:
        return self.game.count_home(state) == self.game.target()

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
