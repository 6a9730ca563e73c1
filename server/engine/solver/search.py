"""The search: depth-first over the engine's moves, with a transposition table."""

from __future__ import annotations

import enum
import random
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
    """A node or time limit was reached: the phase's own, or (``final``) the whole solve's."""

    def __init__(self, final: bool) -> None:
        super().__init__(final)
        self.final = final


#: The share of the limits the streamliner gets before the full search.
STREAMLINER_SHARE = 0.5
#: Positions a start may reach, in units of :func:`_luby`'s sequence: 1, 1, 2, 1, 1, 2, 4, ...
PROBE_UNIT = 1_000
#: The share of positions whose moves a restart tries in a random order.
SHUFFLE_SHARE = 0.5
#: Move kinds a streamlined position keeps while it has any: the card moves.
_CARD_MOVES = frozenset({MoveKind.MOVE, MoveKind.SWAP})


def solve(
    game: Game,
    state: State,
    *,
    seconds: float | None = None,
    nodes: int | None = None,
    clock: Callable[[], float] | None = None,
    probe_unit: int | None = None,
) -> Solution:
    """Search ``state`` for a win; give up after ``seconds`` (by ``clock``) or ``nodes``.

    Two phases share the limits. First a **streamliner**: the same search
    where no stock action (deal, redeal) is tried while a card can move,
    which is a much smaller tree and holds a win for most winnable deals;
    it gets :data:`STREAMLINER_SHARE` of the limits. A win it finds is a win
    (a line of legal moves); if it finds none, the **full** search runs in
    what is left, and only that one can prove a deal lost.

    Each phase **restarts**: its starts may reach ``probe_unit`` positions
    (:data:`PROBE_UNIT` by default) times 1, 1, 2, 1, 1, 2, 4, ... (Luby's
    sequence, :func:`_luby`), and from the second start on the moves of a
    position are tried in a shuffled order (:data:`SHUFFLE_SHARE` of the
    positions; the shuffle is seeded, so the answer is the same every
    time). A start cut off this way is not wasted: the positions it
    searched to the end without a win stay in the phase's table, which the
    next start reads; only those left open on its current line are taken
    out. A start that ends without hitting its limit has searched the
    phase's whole tree, so the full search can still prove a deal lost.
    What the restarts buy is escape from an early wrong turn: a depth-first
    search spends its whole budget under its first choices, and a winning
    line that deals earlier or plays in another order than the first lines
    tried is found by a later start.

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
    streamline_deadline = None if seconds is None else start + STREAMLINER_SHARE * seconds
    streamline_nodes = None if nodes is None else int(STREAMLINER_SHARE * nodes)
    count = 0
    unit = probe_unit or PROBE_UNIT
    try:
        for restricted in (True, False):
            table: set[Key] = set()  # positions this phase searched to no win
            end = streamline_nodes if restricted else None
            probe = 0
            while True:
                search = _Search(game, family, clock, deadline, nodes, count, table)
                search.restricted = restricted
                if restricted:
                    search.phase_deadline = streamline_deadline
                if probe:
                    search.rng = random.Random(probe)
                limit = count + unit * _luby(probe + 1)
                search.phase_nodes = limit if end is None else min(limit, end)
                try:
                    won = search.run(state)
                except _Limit as cut:
                    count = search.count
                    search.forget_open()
                    if cut.final:
                        raise
                    if restricted and (
                        (end is not None and count >= end)
                        or (streamline_deadline is not None and clock() >= streamline_deadline)
                    ):
                        break  # the streamliner's share is spent
                    probe += 1
                    continue
                count = search.count
                if won is not None:
                    return _done(Outcome.WINNABLE, won, count, clock() - start)
                if restricted:
                    break  # no win in the restricted tree: the full search decides
                return _done(Outcome.UNWINNABLE, [], count, clock() - start)
        raise AssertionError("the full search always answers")  # pragma: no cover
    except _Limit:
        return _done(Outcome.UNKNOWN, [], count, clock() - start)


class _Search:
    """One depth-first search with its own table of positions searched to no win."""

    def __init__(
        self,
        game: Game,
        family: Family,
        clock: Callable[[], float],
        deadline: float | None,
        node_limit: int | None,
        count: int,
        seen: set[Key] | None = None,
    ) -> None:
        self.game = game
        self.family = family
        self.clock = clock
        self.deadline = deadline
        self.node_limit = node_limit
        self.phase_deadline: float | None = None
        self.phase_nodes: int | None = None
        self.restricted = False
        self.seen: set[Key] = set() if seen is None else seen
        #: Keys of the positions on the current line, not yet searched to the end.
        self.open: list[Key] = []
        #: Where set, the order of a position's moves is sometimes shuffled (a restart).
        self.rng: random.Random | None = None
        self.line: list[Move] = []
        self.count = count
        self.next_check = count - count % CHECK_EVERY + CHECK_EVERY

    def _check(self) -> None:
        """Raise :class:`_Limit` past a limit; the clock is read every CHECK_EVERY positions."""
        count = self.count
        if count >= self.next_check:
            self.next_check += CHECK_EVERY
            if self.deadline is not None:
                now = self.clock()
                if now >= self.deadline:
                    raise _Limit(final=True)
                if self.phase_deadline is not None and now >= self.phase_deadline:
                    raise _Limit(final=False)
        if self.node_limit is not None and count > self.node_limit:
            raise _Limit(final=True)
        if self.phase_nodes is not None and count > self.phase_nodes:
            raise _Limit(final=False)

    def enter(self, position: State) -> tuple[State, int, list[Move], int] | None:
        """Play safe moves from ``position``; its children, or None if searched before.

        Also says how many keys it left open (on the current line); a
        position seen before, or dead, closes the safe moves that led to it.
        """
        family, line, opened = self.family, self.line, self.open
        played = 0
        while True:
            self.count += 1
            self._check()
            if family.won(position):
                return position, played, [], played
            key = family.key(position)
            if key in self.seen:
                del line[len(line) - played :]
                del opened[len(opened) - played :]
                return None
            self.seen.add(key)
            opened.append(key)
            if family.dead(position):
                del line[len(line) - played :]
                del opened[len(opened) - played - 1 :]
                return None
            moves = self.game.generate(position)
            safe = family.safe_move(position, moves)
            if safe is None:
                ordered = family.order(position, moves)
                if self.restricted:
                    cards = [move for move in ordered if move.kind in _CARD_MOVES]
                    if cards:
                        ordered = cards
                rng = self.rng
                if rng is not None and rng.random() < SHUFFLE_SHARE:
                    rng.shuffle(ordered)
                return position, played, ordered, played + 1
            line.append(safe)
            played += 1
            position = _step(self.game, position, safe)

    def forget_open(self) -> None:
        """Take the positions of a line cut off by a limit out of the table: they are not
        searched to the end, so the next search from the same table must search them."""
        for key in self.open:
            self.seen.discard(key)
        self.open.clear()

    def run(self, state: State) -> list[Move] | None:
        """A winning line from ``state``, or None once the tree is searched without one."""
        family, line, opened = self.family, self.line, self.open
        root = self.enter(state)
        if root is None:
            return None
        if family.won(root[0]):
            return line
        stack: list[tuple[State, int, list[Move], int, int]] = [(*root, 0)]
        while stack:
            position, played, moves, keys, at = stack[-1]
            if at == len(moves):
                stack.pop()
                del opened[len(opened) - keys :]  # searched to the end: no win
                if stack:
                    # Undo this node's safe moves and the move that led here.
                    del line[len(line) - played - 1 :]
                continue
            stack[-1] = (position, played, moves, keys, at + 1)
            move = moves[at]
            line.append(move)
            child = self.enter(_step(self.game, position, move))
            if child is None:
                line.pop()
                continue
            if family.won(child[0]):
                return line
            stack.append((*child, 0))
        return None


def _luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...

    Starts sized by it are mostly short (many different first choices are
    tried) while every size recurs, doubled, without end (so a start long
    enough to finish the search always comes).
    """
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


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
    probe_unit: int | None = None,
) -> Solution:
    """Solve the opening position of deal ``seed`` (limits as in :func:`solve`)."""
    state = game.deal(seed) if deal_version is None else game.deal(seed, deal_version)
    return solve(game, state, seconds=seconds, nodes=nodes, clock=clock, probe_unit=probe_unit)


def verify_line(game: Game, state: State, line: Sequence[str]) -> bool:
    """Whether ``line`` is legal from ``state`` and ends in a won game.

    Raises the engine's errors (:class:`~server.engine.IllegalMoveError`,
    :class:`~server.engine.MoveSyntaxError`) for a move that does not play.
    """
    for text in line:
        state = game.apply(state, Move.parse(text))
    return game.is_won(state)
