"""Hints in practice races: the next move of a winning line from a racer's board."""

from __future__ import annotations

import random
import time
from typing import Any, NamedTuple

from protocol.accounts import is_guest
from protocol.exceptions import ErrorCode
from protocol.messages import HintLevel, HintOutcome
from server.engine import Game, State, find_variant
from server.engine.solver import Outcome
from server.exceptions import RequestRefused
from server.rules.expert import ExpertPolicy, masked
from server.services.race_memory import RaceMemory, StartedRace
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
        #: The expert's winning lines, once a racer's board holds no unseen card: kept as
        #: the expert keeps them in a game it plays itself (``ExpertPolicy.plan``).
        self._expert_lines = LineCache()

    async def hint(self, player: str, race: str, level: HintLevel | None = None) -> Hint:
        """The next move of a winning line from the racer's board: practice races only,
        which are never rated.

        Only the server knows the stock's order, so only it can solve a
        racer's position; the solve runs in the node's pool, bounded in time.
        Following a hint costs no new solve (:class:`LineCache`).
        """
        started = await self.memory.started(race)
        if level is HintLevel.EXPERT:
            return await self._expert(player, race, started)
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

    async def _expert(self, player: str, race: str, started: StartedRace) -> Hint:
        """The expert bot's move from the racer's board, worked out from its view alone.

        The worker is sent the board *masked* (:func:`server.rules.expert.masked`:
        the unseen piles refilled with their cards in a fixed order), so nothing
        it computes can depend on where the cards the racer has not seen lie.
        (After a first redeal the racer has seen every card dealt face up and
        gathered in an order the rules fix: :meth:`Game.unseen`.) Given in
        practice races, and to guests anywhere: a guest is never ranked (bots are
        guests), and what it learns a player could work out from the same view.
        The answer's outcome is always ``unknown``: the expert proves nothing.
        """
        if not (started.practice or is_guest(player)):
            raise RequestRefused(
                ErrorCode.NOT_ALLOWED,
                "expert hints are only given in practice races, or to guests (never ranked)",
            )
        started.check_phase("hint", time.time())
        seq, _, state = await self.memory.board(race, player, fresh=True)
        game = started.game
        if game.is_over(state):
            return Hint(seq, HintOutcome.WINNABLE if game.is_won(state) else HintOutcome.LOST, None)
        known = masked(game, state)
        planned = self._expert_lines.next_move(game, race, player, seq, known)
        if planned is not None:
            return Hint(seq, HintOutcome.UNKNOWN, planned)
        seed = f"{race}/{player}/{seq}"
        seconds = max(EXPERT_SECONDS, self.solver.solving.hint)
        answer = await self.solver.run(seconds, expert_hint, game.id, known.to_data(), seed)
        if answer is None:
            return Hint(seq, HintOutcome.UNKNOWN, None)
        move, plan = answer
        if move is not None and plan:
            self._expert_lines.remember(race, player, seq, known, (move, *plan))
        return Hint(seq, HintOutcome.UNKNOWN, move)


#: The longest an expert hint may wait for its worker (the search is bounded by its
#: budget, a few tenths of a second on a free core; more if the hint setting says so).
EXPERT_SECONDS = 5.0


def expert_hint(
    variant: str, data: dict[str, Any], seed: str
) -> tuple[str | None, tuple[str, ...]]:
    """In a solver worker: the expert's move from a masked board, samples drawn from
    ``seed``, and the rest of the winning line it follows from there, if any."""
    game: Game = find_variant(variant)
    expert = ExpertPolicy(game)
    move = expert.choose(State.from_data(data), random.Random(seed))
    return None if move is None else move.text(), tuple(m.text() for m in expert.plan)
