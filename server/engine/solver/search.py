"""The search: depth-first over the engine's moves, with a transposition table."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.moves import Move, MoveKind
from server.engine.duchess import GrandDuchess
from server.engine.game import Game
from server.engine.parade import RoyalParade
from server.engine.solver.base import Family, Key
from server.engine.solver.duchess import DuchessFamily
from server.engine.solver.parade import ParadeFamily
from server.engine.solver.stockwaste import StockWasteFamily
from server.engine.state import State
from server.engine.stockwaste import StockWasteGame

__all__ = [
    "CHECK_EVERY",
    "DEFAULT_SECONDS",
    "Outcome",
    "Solution",
    "family_of",
    "first_choice",
    "solve",
    "solve_deal",
    "verify_line",
]

#: The default time limit, in seconds, of one solve.
DEFAULT_SECONDS = 10.0
#: How many positions are searched between two readings of the clock.
CHECK_EVERY = 512


class Outcome(enum.Enum):
    """What a search found out about a position."""

    #: A winning line was found (and is in :attr:`Solution.line`).
    WINNABLE = "winnable"
    #: The whole tree was searched without a win: no play wins.
    UNWINNABLE = "unwinnable"
    #: The node or time limit came first.
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Solution:
    """The answer of one search.

    ``line`` is the winning line in the protocol's move text (empty unless
    winnable), replayable by :meth:`Game.replay` from the searched position;
    ``nodes`` counts positions reached, ``elapsed`` is seconds by the clock given.
    """

    outcome: Outcome
    line: tuple[str, ...]
    nodes: int
    elapsed: float

    @property
    def won(self) -> bool:
        return self.outcome is Outcome.WINNABLE


def family_of(game: Game) -> Family:
    """The solver's knowledge of ``game``'s family."""
    if isinstance(game, StockWasteGame):
        return StockWasteFamily(game)
    if isinstance(game, GrandDuchess):
        return DuchessFamily(game)
    if isinstance(game, RoyalParade):
        return ParadeFamily(game)
    return Family(game)


# ----------------------------------------------------------------------
# The search.


def _step(game: Game, state: State, move: Move) -> State:
    """The position after a legal ``move``, without the legality check of ``apply``.

    Only whether any deal was made is kept (Royal Rendezvous fills gaps by
    it); the move count is left at zero, which no rule reads.
    """
    after = game.perform(state, move)
    dealt = state.deals or int(move.kind in (MoveKind.DEAL, MoveKind.DEAL_REVERSED))
    return State(after.variant, after.piles, after.passes, 0, dealt)


class _Limit(Exception):
    """The node or time limit was reached."""


def solve(
    game: Game,
    state: State,
    *,
    seconds: float | None = None,
    nodes: int | None = None,
    clock: Callable[[], float] | None = None,
) -> Solution:
    """Search ``state`` for a win; give up after ``seconds`` (by ``clock``) or ``nodes``.

    The engine reads no clock of its own: a time limit needs ``clock`` (the
    caller's ``time.monotonic``, or a test's fake). It is read once at the
    start, once at the end and every :data:`CHECK_EVERY` positions. Without
    a clock, ``elapsed`` is 0.
    """
    if clock is None:
        if seconds is not None:
            raise ValueError("a time limit needs a clock")
        clock = _no_clock
    family = family_of(game)
    family.begin(state)
    start = clock()
    deadline = None if seconds is None else start + seconds
    node_limit = nodes
    seen: set[Key] = set()
    line: list[Move] = []
    count = 0
    next_check = CHECK_EVERY

    def enter(position: State) -> tuple[State, int, list[Move]] | None:
        """Play safe moves from ``position``; its children, or None if searched before."""
        nonlocal count, next_check
        played = 0
        while True:
            count += 1
            if count >= next_check:
                next_check += CHECK_EVERY
                if deadline is not None and clock() >= deadline:
                    raise _Limit
            if node_limit is not None and count > node_limit:
                raise _Limit
            if family.won(position):
                return position, played, []
            key = family.key(position)
            if key in seen:
                del line[len(line) - played :]
                return None
            seen.add(key)
            if family.dead(position):
                del line[len(line) - played :]
                return None
            moves = game.generate(position)
            safe = family.safe_move(position, moves)
            if safe is None:
                return position, played, family.order(position, moves)
            line.append(safe)
            played += 1
            position = _step(game, position, safe)

    try:
        root = enter(state)
        if root is not None and family.won(root[0]):
            return _done(Outcome.WINNABLE, line, count, clock() - start)
        stack: list[tuple[State, int, list[Move], int]] = []
        if root is not None:
            stack.append((root[0], root[1], root[2], 0))
        while stack:
            position, played, moves, at = stack[-1]
            if at == len(moves):
                stack.pop()
                if stack:
                    # Undo this node's safe moves and the move that led here.
                    del line[len(line) - played - 1 :]
                continue
            stack[-1] = (position, played, moves, at + 1)
            move = moves[at]
            line.append(move)
            child = enter(_step(game, position, move))
            if child is None:
                line.pop()
                continue
            if family.won(child[0]):
                return _done(Outcome.WINNABLE, line, count, clock() - start)
            stack.append((child[0], child[1], child[2], 0))
        return _done(Outcome.UNWINNABLE, [], count, clock() - start)
    except _Limit:
        return _done(Outcome.UNKNOWN, [], count, clock() - start)


def _no_clock() -> float:
    return 0.0


def _done(outcome: Outcome, line: list[Move], nodes: int, elapsed: float) -> Solution:
    return Solution(outcome, tuple(move.text() for move in line), nodes, elapsed)


def first_choice(game: Game, state: State) -> Move | None:
    """The move the search would try first from ``state``: the most promising one.

    What a hint offers when no winning line was found in time: a safe move if
    there is one, else the first move in the family's order (cards home
    first, the stock actions last) whose position is not seen to be lost
    at once, else simply the first. None when no move is legal.
    """
    moves = game.generate(state)
    if not moves:
        return None
    family = family_of(game)
    family.begin(state)
    safe = family.safe_move(state, moves)
    if safe is not None:
        return safe
    ordered = family.order(state, moves)
    for move in ordered:
        if not family.dead(_step(game, state, move)):
            return move
    return ordered[0]


def solve_deal(
    game: Game,
    seed: int,
    deal_version: int | None = None,
    *,
    seconds: float | None = None,
    nodes: int | None = None,
    clock: Callable[[], float] | None = None,
) -> Solution:
    """Solve the opening position of deal ``seed`` (limits as in :func:`solve`)."""
    state = game.deal(seed) if deal_version is None else game.deal(seed, deal_version)
    return solve(game, state, seconds=seconds, nodes=nodes, clock=clock)


def verify_line(game: Game, state: State, line: Sequence[str]) -> bool:
    """Whether ``line`` is legal from ``state`` and ends in a won game.

    Raises the engine's errors (:class:`~server.engine.IllegalMoveError`,
    :class:`~server.engine.MoveSyntaxError`) for a move that does not play.
    """
    for text in line:
        state = game.apply(state, Move.parse(text))
    return game.is_won(state)
