"""The search: depth-first over the engine's moves, with a transposition table."""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.moves import Move, MoveKind, MoveSyntaxError
from server.engine.duchess import GrandDuchess
from server.engine.exceptions import IllegalMoveError
from server.engine.game import Game
from server.engine.parade import RoyalParade
from server.engine.solver.base import Family, Key
from server.engine.solver.beam import Beam
from server.engine.solver.budget import CHECK_EVERY, Budget, Limit, step
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
    "line_fault",
    "solve",
    "solve_deal",
]

#: The default time limit, in seconds, of one solve.
DEFAULT_SECONDS = 10.0


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


#: The share of the depth-first phases' limits the streamliner gets (the beam's share,
#: :attr:`.Family.beam_share`, comes off the limits first).
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
    beam_share: float | None = None,
) -> Solution:
    """Search ``state`` for a win; give up after ``seconds`` (by ``clock``) or ``nodes``.

    Three phases share the limits, each with its own share of them:

    1. a **streamliner** (:data:`STREAMLINER_SHARE` of what the beam leaves):
       the depth-first search where no stock action (deal, redeal) is tried
       while a card can move, a much smaller tree that holds a win for most
       winnable deals;
    2. a **beam** (``beam_share`` of the limits, by default the family's
       :attr:`~.Family.beam_share`, none in some; :mod:`.beam`): the most
       promising positions kept at each move, in beams of growing width,
       which finds the wins whose early choices a depth-first search does
       not get to. A beam that drops nothing searches every position, so
       one that dies out then proves the deal lost;
    3. the **full** search, depth-first, in what is left: it proves a deal
       lost by searching it to the end.

    A win any phase finds is a line of legal moves.

    The depth-first phases **restart**: their starts may reach ``probe_unit``
    positions (:data:`PROBE_UNIT` by default) times 1, 1, 2, 1, 1, 2, 4, ...
    (Luby's sequence, :func:`_luby`), and from the second start on the moves
    of a position are tried in a shuffled order (:data:`SHUFFLE_SHARE` of the
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

    def ending(share: float) -> tuple[float | None, int | None]:
        """Where a phase that ends at ``share`` of the limits ends: a time, a count."""
        return (
            None if seconds is None else start + share * seconds,
            None if nodes is None else int(share * nodes),
        )

    budget = Budget(clock, deadline, nodes)
    unit = probe_unit or PROBE_UNIT
    if beam_share is None:
        beam_share = family.beam_share
    streamlined = STREAMLINER_SHARE * (1 - beam_share)
    try:
        won = _restarting(game, family, state, budget, unit, ending(streamlined))
        if won is None and beam_share > 0:
            budget.phase_deadline, budget.phase_nodes = ending(streamlined + beam_share)
            try:
                won = Beam(game, family, budget).run(state)
            except Limit as cut:
                if cut.final:
                    raise
            else:
                if won is None:  # a beam that dropped nothing died out
                    return _done(Outcome.UNWINNABLE, [], budget.count, clock() - start)
        if won is None:
            won = _restarting(game, family, state, budget, unit, None)
        if won is not None:
            return _done(Outcome.WINNABLE, won, budget.count, clock() - start)
        return _done(Outcome.UNWINNABLE, [], budget.count, clock() - start)
    except Limit:
        return _done(Outcome.UNKNOWN, [], budget.count, clock() - start)


def _restarting(
    game: Game,
    family: Family,
    state: State,
    budget: Budget,
    unit: int,
    ending: tuple[float | None, int | None] | None,
) -> list[Move] | None:
    """One depth-first phase in restarts (see :func:`solve`): a winning line, or None.

    ``ending`` is the streamliner's (the time and count its share ends at),
    and None for the full search, which ends only at the solve's limits.
    None from the streamliner says its share is spent or its tree holds no
    win; from the full search, that no line wins. Raises :class:`.Limit`
    past the solve's limits.
    """
    table: set[Key] = set()  # positions this phase searched to no win
    end_time, end_nodes = ending or (None, None)
    probe = 0
    while True:
        search = _Search(game, family, budget, table)
        search.restricted = ending is not None
        if probe:
            search.rng = random.Random(probe)
        limit = budget.count + unit * _luby(probe + 1)
        budget.phase_deadline = end_time
        budget.phase_nodes = limit if end_nodes is None else min(limit, end_nodes)
        try:
            return search.run(state)
        except Limit as cut:
            search.forget_open()
            if cut.final:
                raise
            if (end_nodes is not None and budget.count >= end_nodes) or (
                end_time is not None and budget.clock() >= end_time
            ):
                return None  # the streamliner's share is spent
            probe += 1


class _Search:
    """One depth-first search with its own table of positions searched to no win."""

    def __init__(
        self, game: Game, family: Family, budget: Budget, seen: set[Key] | None = None
    ) -> None:
        self.game = game
        self.family = family
        self.budget = budget
        self.restricted = False
        self.seen: set[Key] = set() if seen is None else seen
        #: Keys of the positions on the current line, not yet searched to the end.
        self.open: list[Key] = []
        #: Where set, the order of a position's moves is sometimes shuffled (a restart).
        self.rng: random.Random | None = None
        self.line: list[Move] = []

    def enter(self, position: State) -> tuple[State, int, list[Move], int] | None:
        """Play safe moves from ``position``; its children, or None if searched before.

        Also says how many keys it left open (on the current line); a
        position seen before, or dead, closes the safe moves that led to it.
        """
        family, line, opened = self.family, self.line, self.open
        played = 0
        reach = self.budget.reach
        while True:
            reach()
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
            position = step(self.game, position, safe)

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
            child = self.enter(step(self.game, position, move))
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
        if not family.dead(step(game, state, move)):
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


def line_fault(game: Game, state: State, line: Sequence[str]) -> str | None:
    """What keeps ``line`` from winning from ``state``, in words; None when it wins.

    For lines a person or another program gives (``ballroom solve --verify``,
    ``ballroom winnable``): a move that does not parse or is not legal there
    is named by its number, never raised.
    """
    for number, text in enumerate(line, 1):
        try:
            state = game.apply(state, Move.parse(text))
        except (IllegalMoveError, MoveSyntaxError) as exc:
            return f"move {number} ({text!r}) is refused: {exc}"
    if game.is_won(state):
        return None
    return f"{len(line)} moves leave {game.home(state)} of {game.target()} home"
