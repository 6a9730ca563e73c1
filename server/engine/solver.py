"""A solver: decides a deal with full knowledge of the stock order.

Pure, like the rest of the engine: no I/O, no asyncio, and time enters only
through an injected clock, read every :data:`CHECK_EVERY` positions. It is a
depth-first search over the engine's own moves (so every line it finds is
one the engine will replay), made fast enough by three things:

* a **transposition table** of the positions already searched, keyed by a
  canonical form of the position in which the two copies of a card are one
  card and interchangeable piles are sorted (:class:`Canon` says which, per
  family), so that positions that differ only by such a symmetry are
  searched once;
* **safe moves**: a move that can never hurt is played at once, with no
  alternative tried beside it (:meth:`Family.safe_move`, whose proof per
  family is in ``docs/engine.md``);
* **move ordering**: cards going home first, then cards founding a
  foundation, then the stock actions, so that the first line tried is close
  to what a good player does.

Every move either puts a card home, uses up stock, or uses up a redeal, so
a position never repeats along a line: the table only needs to remember
positions that were searched to the end without a win. A search that ends
without a win and without hitting a limit therefore proves the deal lost
(given that the pruning is safe, which is what the tests check against a
plain search on small positions).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from protocol.cards import card_rank, kind_of
from protocol.moves import DISCARD_PILE, Move, MoveKind
from server.engine.duchess import FOUNDATIONS, GrandDuchess
from server.engine.game import Game
from server.engine.parade import FULL, ROW_RANKS, RoyalParade
from server.engine.state import Piles, State
from server.engine.stockwaste import Refill, StockWasteGame

__all__ = [
    "CHECK_EVERY",
    "DEFAULT_SECONDS",
    "Outcome",
    "Solution",
    "solve",
    "solve_deal",
    "verify_line",
]

#: The default time limit, in seconds, of one solve.
DEFAULT_SECONDS = 10.0
#: How many positions are searched between two readings of the clock.
CHECK_EVERY = 512
#: Card id -> card kind (``id % 52``) as a bytes translation table, for keys.
_KIND = bytes(card % 52 for card in range(256))
#: Move kinds in the order the search tries them, after card moves.
_ACTION_ORDER = {MoveKind.SWAP: 0, MoveKind.DEAL: 1, MoveKind.DEAL_REVERSED: 2, MoveKind.REDEAL: 3}

Key = tuple[object, ...]


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


# ----------------------------------------------------------------------
# What each family adds: a canonical key and its safe moves.


def _foundation_slots(
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
        return (tuple(bytes(pile).translate(_KIND) for pile in state.piles), state.passes)

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
        return sorted(moves, key=lambda m: -1 if m.kind is MoveKind.MOVE else _ACTION_ORDER[m.kind])

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


class StockWasteFamily(Family):
    """Royal Cotillion, Gavotte, Odd and Even, Contradance, Royal Rendezvous, Quadrille."""

    def __init__(self, game: StockWasteGame) -> None:
        super().__init__(game)
        self.sw = game
        founded = [
            (game.index[f"f{n}"], spot[0].kinds) for n, spot in enumerate(game.foundations, 1)
        ]
        self.slots = _foundation_slots(founded)
        self.foundations = tuple(pile for pile, _ in founded)
        # Foundations with the same sequence (Contradance's two of each) are interchangeable.
        groups: dict[tuple[int, ...], list[int]] = {}
        for pile, kinds in founded:
            groups.setdefault(kinds, []).append(pile)
        self.groups = tuple(tuple(piles) for piles in groups.values())
        self.waits_for_deal = game.refill is Refill.WASTE_THEN_NEXT_DEAL
        # Where the waste feeds no reserve, it is a stack in the last pass (see ``dead``).
        self.waste_safe = not game.reserve
        # Interchangeable foundations, as positions in ``self.foundations``.
        self.twins = tuple(
            tuple(self.foundations.index(f) for f in group)
            for group in self.groups
            if len(group) > 1
        )
        self.target = game.target()
        # The ladies' columns are never refilled: their cards leave only from the top,
        # only home. In the last pass so does the waste, where it feeds no reserve.
        self.last_pass_stacks = (*game.tableau, game.waste) if self.waste_safe else game.tableau

    def key(self, state: State) -> Key:
        piles = state.piles
        sw = self.sw
        return (
            bytes(piles[sw.stock]).translate(_KIND),
            bytes(piles[sw.waste]).translate(_KIND),
            self._heights(piles),
            tuple(sorted(bytes(piles[t]).translate(_KIND) for t in sw.tableau)),
            bytes(sorted(piles[r][-1] % 52 if piles[r] else 255 for r in sw.reserve)),
            state.passes,
            self.waits_for_deal and state.deals > 0,
        )

    def _heights(self, piles: Piles) -> bytes:
        """The foundations' heights, each pair of twins in order (they are interchangeable)."""
        heights = [len(piles[f]) for f in self.foundations]
        for twins in self.twins:
            if len(twins) == 2:
                a, b = twins
                if heights[a] > heights[b]:
                    heights[a], heights[b] = heights[b], heights[a]
            else:
                for at, height in zip(twins, sorted([heights[t] for t in twins]), strict=True):
                    heights[at] = height
        return bytes(heights)

    def won(self, state: State) -> bool:
        piles = state.piles
        return sum([len(piles[f]) for f in self.foundations]) == self.target

    def dead(self, state: State) -> bool:
        stacks = self.last_pass_stacks if state.passes >= self.game.redeals else self.sw.tableau
        return bool(stacks) and self.buried(state.piles, stacks, self.slots)

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        """A card home to the last open place of its kind, from any source.

        From a reserve or a waste that refills one, too: the refill moves
        the waste's top card (or the stock's, or the next dealt card) into
        a reserve spot, where it is available for good, and leaves the
        stock's order as it was; ``docs/engine.md`` has the argument.
        """
        piles = state.piles
        index = self.game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            src, dst = index[move.src], index[move.dst]
            kind = piles[src][-1] % 52
            if self.only_slot_left(self.slots[kind], lambda f: len(piles[f]), dst):
                return move
        return None


class DuchessFamily(Family):
    """Grand Duchess and Parisienne."""

    def __init__(self, game: GrandDuchess) -> None:
        super().__init__(game)
        self.duchess = game
        founded = [
            (pile, found.kinds) for pile, found in zip(game.foundations, FOUNDATIONS, strict=True)
        ]
        self.slots = _foundation_slots(founded)

    def key(self, state: State) -> Key:
        piles = state.piles
        game = self.duchess
        return (
            bytes(piles[game.stock]).translate(_KIND),
            tuple(bytes(piles[t]).translate(_KIND) for t in game.tableau),
            bytes(piles[game.reserve]).translate(_KIND),
            tuple(len(piles[f]) for f in game.foundations),
            state.passes,
        )

    def dead(self, state: State) -> bool:
        """In the last pass a tableau card leaves only from the top, only home."""
        if state.passes < self.game.redeals:
            return False
        return self.buried(state.piles, self.duchess.tableau, self.slots)

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        if state.passes < self.game.redeals:
            return None  # a card taken home now is missing from the next stock
        piles = state.piles
        index = self.game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            pile = piles[index[move.src]]
            card = pile[-1] if move.index is None else pile[move.index]
            dst = index[move.dst]
            if self.only_slot_left(self.slots[card % 52], lambda f: len(piles[f]), dst):
                return move
        return None


class ParadeFamily(Family):
    """Royal Parade, Bergholt's Royal Parade and Virginia Reel."""

    def __init__(self, game: RoyalParade) -> None:
        super().__init__(game)
        self.parade = game
        # Card kind -> (chain, height): the chain is a row and suit, whose two
        # foundations take its kinds in height order. Aces have no chain.
        self.chain: dict[int, tuple[int, int]] = {}
        for row, ranks in enumerate(ROW_RANKS):
            for height, rank in enumerate(ranks):
                for suit in range(4):
                    self.chain[kind_of(suit, rank)] = (row * 4 + suit, height)

    def dead(self, state: State) -> bool:
        """Both copies of a card buried in depots under higher cards of their own chain.

        A depot card leaves only from the top, and only home (or, a base
        card, into a space; an ace, to the discard). A card of height ``h``
        covered by a card of the same row and suit with a greater height
        can only be uncovered once that card goes home, which needs a
        foundation of that chain past height ``h``, which needs a copy of
        the covered card. If both copies are covered so, neither foundation
        of the chain can ever pass ``h``.
        """
        piles = state.piles
        chain = self.chain
        covered: set[int] = set()
        for depot in self.parade.depots:
            pile = piles[depot]
            if len(pile) < 2:
                continue
            above: dict[int, int] = {}
            for card in reversed(pile):
                kind = card % 52
                link = chain.get(kind)
                if link is None:
                    continue
                which, height = link
                if above.get(which, -1) > height:
                    if kind in covered:
                        return True
                    covered.add(kind)
                elif above.get(which, -1) < height:
                    above[which] = height
        return False

    def key(self, state: State) -> Key:
        piles = state.piles
        game = self.parade
        rows = tuple(
            tuple(sorted(bytes(piles[spot]).translate(_KIND) for spot in spots))
            for spots in game.rows
        )
        depots = tuple(bytes(piles[d]).translate(_KIND) for d in game.depots)
        stock = piles[game.stock]
        if not stock:
            depots = tuple(sorted(depots))  # no deal left: depots are interchangeable
        return (rows, depots, bytes(stock).translate(_KIND))

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        piles = state.piles
        game = self.parade
        index = game.index
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            if move.dst == DISCARD_PILE:
                return move  # an ace is good for nothing but blocking
            dst = index[move.dst]
            pile = piles[dst]
            if not pile:
                continue  # a base card into a space: a choice of which card gets the space
            if self._only_foundation_left(piles, dst):
                return move
        return None

    def _only_foundation_left(self, piles: Piles, dst: int) -> bool:
        """Whether the other foundation of this row and suit no longer needs this card's kind.

        Each row and suit has two foundations (one per deck's base card). The
        card is safe to build if the other one is past it, or stands at the
        same height (the two are then interchangeable); if it is lower or
        not yet founded, it may need this very copy later.
        """
        game = self.parade
        height = len(piles[dst])
        suit_base = piles[dst][0] % 52
        for spot in game.rows[game.row_of[dst]]:
            if spot == dst:
                continue
            other = piles[spot]
            if other and other[0] % 52 == suit_base:  # founded: it holds this row's base
                return len(other) >= height
        return False

    def order(self, state: State, moves: Sequence[Move]) -> list[Move]:
        """Builds first, then base cards into spaces, then swaps, then the deals.

        A card that could go into any of several spaces of one row is tried
        in the first only: the key sorts a row's spots, so the others lead
        to the same position.
        """
        piles = state.piles
        index = self.game.index
        row_of = self.parade.row_of
        spaces: set[tuple[str | None, int | None, int]] = set()
        ranked: list[tuple[int, Move]] = []
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                ranked.append((2 + _ACTION_ORDER[move.kind], move))
                continue
            assert move.dst is not None
            dst = index[move.dst]
            if piles[dst]:
                ranked.append((0, move))
                continue
            row = row_of.get(dst)
            if row is not None:
                space = (move.src, move.index, row)
                if space in spaces:
                    continue
                spaces.add(space)
            ranked.append((1, move))
        ranked.sort(key=lambda pair: pair[0])
        return [move for _, move in ranked]

    def won(self, state: State) -> bool:
        piles = state.piles
        game = self.parade
        return all(len(piles[spot]) == FULL for spot in game.parade) and all(
            card_rank(piles[spot][0]) == ROW_RANKS[game.row_of[spot]][0] for spot in game.parade
        )


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
