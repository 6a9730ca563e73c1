"""Post-race analysis: where each racer's deal stopped being winnable, by the solver.

A racer's game is a line of positions, from the opening to their last move.
If the opening is winnable and their last position is not, some move turned
a winnable position into a lost one; since every position after a lost one is
lost too (a game never gains options), the positions are winnable up to one
move and lost after it, so a binary search over the move log finds that move
in about log2(moves) solves instead of one per move.

Every solve is bounded by the racer's share of time; a solve that does not
decide makes that racer's analysis ``unknown`` (the solver's word is never
guessed at). Pure: time enters through the clock given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from protocol.moves import Move
from protocol.results import RacerAnalysis, Winnability
from server.engine import Game, State
from server.engine.solver import Outcome, solve

__all__ = ["analyse_opening", "analyse_racer"]


def _outcome(game: Game, state: State, deadline: float, clock: Callable[[], float]) -> Outcome:
    """The solver's outcome from ``state`` in the time left until ``deadline``."""
    left = deadline - clock()
    if game.is_won(state):
        return Outcome.WINNABLE
    if left <= 0:
        return Outcome.UNKNOWN
    return solve(game, state, seconds=left, clock=clock).outcome


def analyse_racer(
    game: Game,
    opening: State,
    moves: Sequence[str],
    *,
    player: str,
    won: bool,
    opening_outcome: Outcome,
    seconds: float,
    clock: Callable[[], float],
) -> RacerAnalysis:
    """One racer's analysis within ``seconds``: the first move after which their board was
    no longer winnable, given what the solver said of the ``opening``."""
    if won:
        return RacerAnalysis(player, Winnability.WON)
    if opening_outcome is Outcome.UNWINNABLE:
        return RacerAnalysis(player, Winnability.NEVER)
    if opening_outcome is Outcome.UNKNOWN:
        return RacerAnalysis(player, Winnability.UNKNOWN)
    if not moves:  # their board is the opening, which is winnable
        return RacerAnalysis(player, Winnability.KEPT)
    states = [opening]
    for text in moves:
        states.append(game.apply(states[-1], Move.parse(text)))
    deadline = clock() + seconds
    last = _outcome(game, states[-1], deadline, clock)
    if last is Outcome.WINNABLE:
        return RacerAnalysis(player, Winnability.KEPT)
    if last is Outcome.UNKNOWN:
        return RacerAnalysis(player, Winnability.UNKNOWN)
    winnable, lost = 0, len(moves)  # after `winnable` moves it was; after `lost`, not
    while lost - winnable > 1:
        middle = (winnable + lost) // 2
        outcome = _outcome(game, states[middle], deadline, clock)
        if outcome is Outcome.UNKNOWN:
            return RacerAnalysis(player, Winnability.UNKNOWN)
        if outcome is Outcome.WINNABLE:
            winnable = middle
        else:
            lost = middle
    return RacerAnalysis(player, Winnability.LOST, lost, moves[lost - 1])


def analyse_opening(
    game: Game,
    opening: State,
    *,
    line: Sequence[str] = (),
    seconds: float,
    clock: Callable[[], float],
) -> tuple[Outcome, int | None]:
    """What the solver says of the deal, and the par (the length of the line it found).

    ``line`` is a winning line already known from the opening (a winnable
    deal's proof): it spares the solve.
    """
    if line:
        return Outcome.WINNABLE, len(line)
    solution = solve(game, opening, seconds=seconds, clock=clock)
    return solution.outcome, len(solution.line) if solution.won else None
