"""A beam search: many lines at once, the most promising kept at every move.

The depth-first search spends its budget under its first choices; where
the win needs an early choice other than the first tried (which card to
leave on the waste, when to take a reserve card home so that its gap takes
the right card), even restarts reach few of the alternatives. A beam
searches breadth-first instead, keeping at each depth only the ``width``
positions the family rates highest (:meth:`.Family.progress`: mostly cards
home), and so follows many different early choices in step. It finds wins
only: a beam that dies out has dropped positions unsearched, which proves
nothing, so a wider one is tried. The same safe moves, dead ends and keys
as the depth-first search keep it from searching a position twice.
"""

from __future__ import annotations

from protocol.moves import Move
from server.engine.game import Game
from server.engine.solver.base import Family, Key
from server.engine.solver.budget import Budget, step
from server.engine.state import State

__all__ = ["FIRST_WIDTH", "WIDENING", "Beam"]

#: The width of the first beam, and how much wider each next one is.
FIRST_WIDTH = 10
WIDENING = 3

#: A line as links back to its first move, so that a position's line costs one tuple.
_Link = tuple[Move, "_Link"] | None
#: A position the beam holds: the position, its line, its moves (none once won).
_Held = tuple[State, _Link, list[Move]]


class Beam:
    """Beams of growing width from one position, until one wins or the limits come."""

    def __init__(self, game: Game, family: Family, budget: Budget) -> None:
        self.game = game
        self.family = family
        self.budget = budget

    def run(self, state: State) -> list[Move] | None:
        """A winning line from ``state``, or None once a beam that dropped nothing found
        none (then no line wins); raises :class:`.Limit` once the limits come."""
        width = FIRST_WIDTH
        while True:
            won, dropped = self._one(state, width)
            if won is not None or not dropped:
                return won
            width *= WIDENING

    def _one(self, state: State, width: int) -> tuple[list[Move] | None, bool]:
        """One beam of ``width``: a winning line or None, and whether it dropped any
        position (if not, it searched them all)."""
        seen: set[Key] = set()
        root = self._settle(state, None, seen)
        if root is None:
            return None, False
        if not root[2]:
            return _unlinked(root[1]), False
        level, dropped = [root], False
        progress = self.family.progress
        while level:
            following: list[_Held] = []
            for position, line, moves in level:
                for move in moves:
                    held = self._settle(step(self.game, position, move), (move, line), seen)
                    if held is None:
                        continue
                    if not held[2]:
                        return _unlinked(held[1]), dropped  # won
                    following.append(held)
            if len(following) > width:
                # Stable: of positions rated alike, the earlier in the family's order stay.
                following.sort(key=lambda held: progress(held[0]), reverse=True)
                del following[width:]
                dropped = True
            level = following
        return None, dropped

    def _settle(self, position: State, line: _Link, seen: set[Key]) -> _Held | None:
        """``position`` after its safe moves, with its moves in the family's order (none
        once won); None if it was held before or is lost."""
        family, reach = self.family, self.budget.reach
        while True:
            reach()
            if family.won(position):
                return position, line, []
            key = family.key(position)
            if key in seen:
                return None
            seen.add(key)
            if family.dead(position):
                return None
            moves = self.game.generate(position)
            if not moves:
                return None  # over, and not won
            safe = family.safe_move(position, moves)
            if safe is None:
                return position, line, family.order(position, moves)
            line = (safe, line)
            position = step(self.game, position, safe)


def _unlinked(line: _Link) -> list[Move]:
    moves: list[Move] = []
    while line is not None:
        move, line = line
        moves.append(move)
    moves.reverse()
    return moves
