"""The solver's knowledge of the stock and waste games."""

from __future__ import annotations

from collections.abc import Sequence

from protocol.moves import Move, MoveKind
from server.engine.solver.base import KIND, Family, Key, foundation_places, foundation_slots
from server.engine.solver.proofs import dealt_lost, stuck
from server.engine.solver.twins import TwinRuns
from server.engine.state import Piles, State
from server.engine.stockwaste import Refill, StockWasteGame

__all__ = ["RESERVE_BEAM_SHARE", "StockWasteFamily"]

#: The beam's share of the limits in a game whose reserve refills from the waste.
RESERVE_BEAM_SHARE = 0.45
#: Answers of the stuck-card proof kept at most (then forgotten, all at once).
STUCK_KNOWN = 50_000


class StockWasteFamily(Family):
    """Royal Cotillion, Gavotte, Odd and Even, Contradance, Royal Rendezvous, Quadrille."""

    def __init__(self, game: StockWasteGame) -> None:
        super().__init__(game)
        self.sw = game
        founded = [
            (game.index[f"f{n}"], spot[0].kinds) for n, spot in enumerate(game.foundations, 1)
        ]
        self.slots = foundation_slots(founded)
        self.foundations = tuple(pile for pile, _ in founded)
        self.sequences = tuple(kinds for _, kinds in founded)
        self.places = foundation_places(self.sequences)
        # Foundations with the same sequence (Contradance's two of each) are interchangeable.
        groups: dict[tuple[int, ...], list[int]] = {}
        for pile, kinds in founded:
            groups.setdefault(kinds, []).append(pile)
        self.groups = tuple(tuple(piles) for piles in groups.values())
        self.waits_for_deal = game.refill is Refill.WASTE_THEN_NEXT_DEAL
        self.reserve = frozenset(game.reserve)
        # Where a reserve refills from the waste, beams find most of the wins the
        # depth-first phases miss (which card a gap takes is a choice made early).
        self.beam_share = RESERVE_BEAM_SHARE if game.reserve else 0.0
        # Where the waste feeds no reserve, it is a stack in the last pass (see ``dead``).
        self.waste_safe = not game.reserve
        # Interchangeable foundations, as positions in ``self.foundations``.
        self.twins = tuple(
            tuple(self.foundations.index(f) for f in group)
            for group in self.groups
            if len(group) > 1
        )
        self.target = game.target()
        self.root_passes = -1  # no search begun: keys hold the whole stock
        # Kinds whose only two places are on a pair of twins (Contradance's every kind):
        # see ``_twin_dominates``. Not where a reserve refills from the waste.
        self.twin_kinds = (
            frozenset(
                kind
                for kind, places in self.slots.items()
                if len(places) == 2 and places[0][2] == places[1][2]
            )
            if self.waste_safe and game.decks == 2
            else frozenset()
        )
        #: Every two pairs of twins played with only their own cards (Contradance; ``dead``).
        self.twin_runs = (
            TwinRuns([(a, b) for a, b in self.twins], self.sequences)
            if self.twin_kinds and not game.tableau and all(len(t) == 2 for t in self.twins)
            else None
        )

        #: :func:`.stuck`'s answers by the ladies' columns and the foundations' heights,
        #: where the waste feeds a reserve (see ``dead``).
        self._stuck_known: dict[tuple[tuple[tuple[int, ...], ...], bytes], bool] = {}
        #: The last position ``dead`` found alive whose waste top could not go home: a
        #: deal from it changes nothing in :func:`.dealt_lost`'s run (see ``_dealt_from``).
        self._quiet: State | None = None
        #: The last position ``dead`` found alive: a waste card played from it to the
        #: last open place of its kind changes nothing in that run (``_played_last_from``).
        self._alive: State | None = None

    def begin(self, root: State) -> None:
        self.root_passes = root.passes
        self._quiet = self._alive = None

    def key(self, state: State) -> Key:
        """Stock, waste, foundation heights, ladies' columns and reserve, with symmetries merged.

        In the root's own pass the stock only ever loses its top card (a
        deal or a refill), so its size says what it holds.
        """
        piles = state.piles
        sw = self.sw
        stock = piles[sw.stock]
        return (
            len(stock) if state.passes == self.root_passes else bytes(stock).translate(KIND),
            bytes(piles[sw.waste]).translate(KIND),
            self._heights(piles),
            tuple(sorted(bytes(piles[t]).translate(KIND) for t in sw.tableau)),
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
        return self._home(state.piles) == self.target

    def progress(self, state: State) -> int:
        """Cards home, less a quarter for each card on the waste: of two positions with
        as many home, the one that covered fewer cards has more within reach."""
        piles = state.piles
        return 4 * self._home(piles) - len(piles[self.sw.waste])

    def _home(self, piles: Piles) -> int:
        return sum([len(piles[f]) for f in self.foundations])

    def dead(self, state: State) -> bool:
        """Some card on a stack can never leave it (:func:`.stuck`).

        The ladies' columns are stacks in every pass; in the last pass, the
        waste too where it feeds no reserve (with no redeal left nothing
        reorders it, and deals only add cards on top). Not the waste of a game
        with a refilled reserve: a refill takes its top card elsewhere. Where
        the waste feeds no reserve, the stock's and every redeal's order
        count too (:func:`.dealt_lost`), and in Contradance each kind's two
        copies, one for each twin foundation (:class:`.TwinRuns`).
        """
        piles = state.piles
        sw = self.sw
        if self.waste_safe:
            heights = [len(piles[f]) for f in self.foundations]
            redeals = max(0, self.game.redeals - state.passes)
            if self._dealt_from(state) or self._played_last_from(state):
                # dealt_lost's run from the position before this card moved is, from
                # its first step or before it, this position's run: alive too.
                lost = False
            else:
                # The stock's order counts too: a dealt card that cannot go home covers
                # the waste.
                lost = dealt_lost(
                    (piles[t] for t in sw.tableau),
                    piles[sw.waste],
                    piles[sw.stock],
                    redeals,
                    heights,
                    self.sequences,
                    self.places,
                )
            if not lost and self.twin_runs is not None:
                # Copies count too: a kind's two copies, one for each twin (TwinRuns).
                lost = self.twin_runs.lost(
                    bytes(piles[sw.stock]), bytes(piles[sw.waste]), heights, redeals
                )
            quiet = not lost and not sw.tableau and not self._top_fits(piles)
            self._quiet = state if quiet else None
            self._alive = None if lost else state
            return lost
        # Where the waste feeds a reserve, the stacks are the ladies' columns in every
        # pass, and every card not home and not on them is ready: the answer depends on
        # the columns and the foundations' heights only, which a deal leaves as they were.
        columns = tuple([piles[t] for t in sw.tableau])
        if not columns:
            return False
        heights = [len(piles[f]) for f in self.foundations]
        known = (columns, bytes(heights))
        answer = self._stuck_known.get(known)
        if answer is None:
            ready = set(bytes(piles[sw.stock]).translate(KIND))
            ready.update([piles[r][-1] % 52 for r in sw.reserve if piles[r]])
            ready.update(bytes(piles[sw.waste]).translate(KIND))
            answer = stuck(columns, ready, heights, self.sequences, self.places)
            if len(self._stuck_known) >= STUCK_KNOWN:
                self._stuck_known.clear()
            self._stuck_known[known] = answer
        return answer

    def _top_fits(self, piles: Piles) -> bool:
        """Whether the waste's top card goes home now (to some foundation at its height)."""
        waste = piles[self.sw.waste]
        if not waste:
            return False
        places = self.places[waste[-1] % 52]
        return not places or any(
            len(piles[self.foundations[foundation]]) == position for foundation, position in places
        )

    def _dealt_from(self, state: State) -> bool:
        """Whether ``state`` is the last quiet live position with one card dealt."""
        piles = _in_same_pass(self._quiet, state)
        if piles is None:
            return False
        sw = self.sw
        old, new = piles
        stock = old[sw.stock]
        return (
            len(new[sw.stock]) + 1 == len(stock)
            and new[sw.waste][-1:] == stock[-1:]
            and new[sw.waste][:-1] == old[sw.waste]
            and all(new[f] is old[f] or new[f] == old[f] for f in self.foundations)
        )

    def _played_last_from(self, state: State) -> bool:
        """Whether ``state`` is the last live position with its waste top played home to
        the last open place of the card's kind (:meth:`only_slot_left`: twins of the
        same height count as one place).

        :func:`.dealt_lost`'s run from that position takes the card home
        first (it is on top, and it fits). After that step the run holds the
        kind as available and the foundation one lower; this position's run
        holds the foundation one higher and not the kind. They free the same
        cards from there, so this position is alive too:

        - a later kind wanted on the foundation needs the same kinds in both
          runs, and a twin at the same height wants nothing the foundation
          does not want as well, for no more;
        - the card's other copy, if not home, fits the twin at once in both.

        Not so where the twin is lower: the other copy must then wait for the
        twin to be built up to it, while the earlier run let it use the
        foundation's place (tests/engine/test_solver_proofs.py has such a
        position).
        """
        piles = _in_same_pass(self._alive, state)
        if piles is None:
            return False
        sw = self.sw
        old, new = piles
        waste = old[sw.waste]
        if not waste or new[sw.waste] != waste[:-1] or len(new[sw.stock]) != len(old[sw.stock]):
            return False
        card = waste[-1]
        grown = [f for f in self.foundations if len(new[f]) != len(old[f])]
        if len(grown) != 1 or new[grown[0]][-1:] != (card,):
            return False
        return self.only_slot_left(self.slots[card % 52], lambda f: len(old[f]), grown[0])

    def safe_move(self, state: State, moves: Sequence[Move]) -> Move | None:
        """A card home to the last open place of its kind: from the waste or the ladies'
        side always, from a reserve only once no card can be dealt any more.

        A reserve card's gap is refilled at once, from the waste's top card
        (or the stock's). A line that deals first and plays the card after
        fills the gap with a later card instead, and which of the two is
        left on the waste, to be covered by the deals to come, can decide
        the game (``tests/engine/test_solver.py``, a queen that must wait
        for a deal). With nothing left to deal, the waste only shrinks, and
        the refill now takes the card a later one would have: then the move
        is safe (``docs/engine.md`` has the argument).
        """
        piles = state.piles
        index = self.game.index
        stock, waste = piles[self.sw.stock], piles[self.sw.waste]
        dealing = bool(stock) or (state.passes < self.game.redeals and bool(waste))
        for move in moves:
            if move.kind is not MoveKind.MOVE:
                continue
            assert move.src is not None and move.dst is not None
            src, dst = index[move.src], index[move.dst]
            if dealing and src in self.reserve:
                continue
            kind = piles[src][-1] % 52
            if self.only_slot_left(self.slots[kind], lambda f: len(piles[f]), dst):
                return move
            if src == self.sw.waste and kind in self.twin_kinds and self._twin_dominates(state):
                return move
        return None

    def _twin_dominates(self, state: State) -> bool:
        """Whether the waste's top card may go home to either of its twin places now.

        Its kind's two places are the same height of two foundations that
        build the same sequence, and it fits one of them (the taller: the
        shorter is ``only_slot_left``'s case). In the last pass, with the other
        copy of the kind lying under it in the waste, the move is safe: no
        line can bring that copy home before this one (the waste is a stack,
        and no redeal is left to reorder it), so in a winning line this copy
        goes home first, to one of the two places; playing it now instead
        leaves the rest of the line legal, the two foundations merely
        swapping roles once the line fills the other place (they are
        interchangeable; docs/engine.md, "Safe moves").
        """
        if state.passes < self.game.redeals:
            return False
        waste = state.piles[self.sw.waste]
        kind = waste[-1] % 52
        return any(card % 52 == kind for card in waste[:-1])


def _in_same_pass(before: State | None, state: State) -> tuple[Piles, Piles] | None:
    """The piles of ``before`` and of ``state``, if both are in the same pass."""
    if before is None or before.passes != state.passes:
        return None
    return before.piles, state.piles
