"""What every phase of a solve shares: one count of positions, two limits each, one step.

A solve runs phases one after another (:mod:`.search` says which) under
the whole solve's limits, each phase also under its own share of them.
Both are counted here, the same way for every phase: positions reached,
and a clock read every :data:`CHECK_EVERY` of them.
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.moves import Move, MoveKind
from server.engine.game import Game
from server.engine.state import State

__all__ = ["CHECK_EVERY", "Budget", "Limit", "step"]

#: How many positions are searched between two readings of the clock.
CHECK_EVERY = 512


class Limit(Exception):
    """A node or time limit was reached: the phase's own, or (``final``) the whole solve's."""

    def __init__(self, final: bool) -> None:
        super().__init__(final)
        self.final = final


class Budget:
    """The positions a solve has reached and the limits it runs under.

    One budget goes through every phase of a solve, so ``count`` is the
    solve's; ``node_limit`` and ``deadline`` are the solve's limits,
    ``phase_nodes`` and ``phase_deadline`` those of the phase (or of the
    restart) running now.
    """

    def __init__(
        self, clock: Callable[[], float], deadline: float | None, node_limit: int | None
    ) -> None:
        self.clock = clock
        self.deadline = deadline
        self.node_limit = node_limit
        self.phase_deadline: float | None = None
        self.phase_nodes: int | None = None
        self.count = 0
        self.next_check = CHECK_EVERY

    def reach(self) -> None:
        """Count one more position; raise :class:`Limit` past a limit (the clock is read
        every :data:`CHECK_EVERY` positions)."""
        self.count += 1
        count = self.count
        if count >= self.next_check:
            self.next_check += CHECK_EVERY
            if self.deadline is not None:
                now = self.clock()
                if now >= self.deadline:
                    raise Limit(final=True)
                if self.phase_deadline is not None and now >= self.phase_deadline:
                    raise Limit(final=False)
        if self.node_limit is not None and count > self.node_limit:
            raise Limit(final=True)
        if self.phase_nodes is not None and count > self.phase_nodes:
            raise Limit(final=False)


def step(game: Game, state: State, move: Move) -> State:
    """The position after a legal ``move``, without the legality check of ``apply``.

    Only whether any deal was made is kept (Royal Rendezvous fills gaps by
    it); the move count is left at zero, which no rule reads.
    """
    after = game.perform(state, move)
    dealt = state.deals or int(move.kind in (MoveKind.DEAL, MoveKind.DEAL_REVERSED))
    return State(after.variant, after.piles, after.passes, 0, dealt)
