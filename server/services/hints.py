"""Hints in practice races: the next move of a winning line from a racer's board."""

from __future__ import annotations

import time
from typing import NamedTuple

from protocol.exceptions import ErrorCode
from protocol.messages import HintOutcome
from server.engine.solver import Outcome
from server.exceptions import RequestRefused
from server.services.race_memory import RaceMemory
from server.services.solving import LineCache, SolverPool

__all__ = ["Hint", "Hints"]


class Hint(NamedTuple):
    """The answer to a hint: from the board after ``seq`` moves, ``move`` wins (or no line).

    With an ``unknown`` outcome, ``move`` (if any) is only the most promising move.
    """

    seq: int
    outcome: HintOutcome
    move: str | None


_HINT_OUTCOMES = {
    Outcome.WINNABLE: HintOutcome.WINNABLE,
    Outcome.UNWINNABLE: HintOutcome.LOST,
    Outcome.UNKNOWN: HintOutcome.UNKNOWN,
}


class Hints:
    """Solving racers' positions on request, off the event loop."""

    def __init__(self, memory: RaceMemory, solver: SolverPool) -> None:
        self.memory = memory
        self.solver = solver
        self._lines = LineCache()

    async def hint(self, player: str, race: str) -> Hint:
        """The next move of a winning line from the racer's board: practice races only,
        which are never rated.

        Only the server knows the stock's order, so only it can solve a
        racer's position; the solve runs in the node's pool, bounded in time.
        Following a hint costs no new solve (:class:`LineCache`).
        """
        started = await self.memory.started(race)
        # Practice races, and no others, are never rated (server/rules/ratings.py,
        # may_be_rated): so no hint ever helps a rated race.
        if not started.practice:
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED,
                "hints are only given in practice races, which are never rated",
            )
        started.check_phase("hint", time.time())
        seq, _, state = await self.memory.board(race, player, fresh=True)
        game = started.game
        if game.is_won(state):
            return Hint(seq, HintOutcome.WINNABLE, None)
        move = self._lines.next_move(game, race, player, seq, state)
        if move is not None:
            return Hint(seq, HintOutcome.WINNABLE, move)
        answer = await self.solver.solve_from(game, state)
        if answer.outcome is Outcome.UNKNOWN:
            # No line found in time: the move the search would try first.
            return Hint(seq, HintOutcome.UNKNOWN, answer.suggestion)
        if answer.outcome is not Outcome.WINNABLE:
            return Hint(seq, _HINT_OUTCOMES[answer.outcome], None)
        self._lines.remember(race, player, seq, state, answer.line)
        return Hint(seq, HintOutcome.WINNABLE, answer.line[0])
