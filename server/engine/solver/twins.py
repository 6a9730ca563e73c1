"""A proof that some pairs of twin foundations can never all be finished (Contradance).

Contradance's foundations come in twins: two of each suit build 5-4-3-2-A-K,
two build 6-7-...-Q, and each kind has two copies, one for each twin. The
other proofs (:mod:`.proofs`) let one copy of a kind serve both twins, so
they miss the deals that are lost because the copies come in the wrong
order: a copy that fits the taller twin now must either go there, leaving
the shorter one to wait for the other copy, or lie on the waste, covering
whatever the twins need next.

:class:`TwinRuns` settles that exactly for every two pairs of twins, in a
relaxation that keeps only their own cards: the stock, the waste and every
redeal in their order, every other card taken out. Any line of the real
game, cut down to the moves of those cards, is a line of that smaller game
(a card of theirs on top of the real waste is on top of their own waste
too; a deal of another card changes nothing there; a redeal turns both
wastes over alike). So if two pairs cannot both be finished in their
smaller game, no line wins the real one. Two pairs at a time see how the
cards of one bury those of the other (a pair alone sees only its copies'
order), and each smaller game has at most 22 cards: it is searched to the
end, its answers kept by position.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from server.engine.solver.base import KIND

__all__ = ["TwinRuns"]

#: Pairs of twins searched together.
TOGETHER = 2
#: Positions of the smaller games whose answer is kept (then forgotten, all at once).
KNOWN_AT_MOST = 300_000


@dataclass(frozen=True, slots=True)
class _Group:
    """Some pairs of twins and their cards, searched together."""

    #: Each pair's two foundations, as positions in the heights :meth:`TwinRuns.lost` gets.
    pairs: tuple[tuple[int, int], ...]
    #: Card kind -> which of the pairs takes it (only the group's own kinds are read).
    pair_of: bytes
    #: Card kind -> its place in its pair's sequence, counted as a height.
    height_of: bytes
    #: Every pair finished: each pair's two heights, lower first.
    finished: bytes
    #: Card ids of every other kind, deleted by ``bytes.translate``.
    others: bytes


class TwinRuns:
    """Whether every two pairs of twin foundations can still be finished together.

    ``pairs`` holds each pair's two foundations (positions in ``heights``
    as :meth:`lost` is given them), ``sequences[f]`` the kinds foundation
    ``f`` builds, from its base card up; ``together`` is how many pairs
    are searched at a time.
    """

    def __init__(
        self,
        pairs: Sequence[tuple[int, int]],
        sequences: Sequence[Sequence[int]],
        together: int = TOGETHER,
    ) -> None:
        for first, second in pairs:
            if tuple(sequences[first]) != tuple(sequences[second]):
                raise ValueError("twin foundations must build the same sequence")
        self._groups = [
            self._group(group, sequences)
            for group in combinations(pairs, min(together, len(pairs)))
        ]
        self._known: dict[tuple[int, bytes, bytes, bytes, int], bool] = {}

    @staticmethod
    def _group(pairs: tuple[tuple[int, int], ...], sequences: Sequence[Sequence[int]]) -> _Group:
        pair_of, height_of = bytearray(52), bytearray(52)
        kinds: set[int] = set()
        finished = bytearray()
        for n, (first, _) in enumerate(pairs):
            sequence = sequences[first]
            for height, kind in enumerate(sequence):
                pair_of[kind], height_of[kind] = n, height
            kinds.update(sequence)
            finished += bytes((len(sequence), len(sequence)))
        others = bytes(card for card in range(256) if card % 52 not in kinds)
        return _Group(pairs, bytes(pair_of), bytes(height_of), bytes(finished), others)

    def lost(self, stock: bytes, waste: bytes, heights: Sequence[int], redeals: int) -> bool:
        """Whether some pairs cannot be finished even with every other card out of the way.

        ``stock`` and ``waste`` are card ids (the stock's next card last, the
        waste's top card last); ``heights[f]`` counts foundation ``f``'s cards;
        ``redeals`` are those left.
        """
        for number, group in enumerate(self._groups):
            levels = bytearray()
            for first, second in group.pairs:
                levels += bytes(sorted((heights[first], heights[second])))
            own_stock = stock.translate(KIND, group.others)
            own_waste = waste.translate(KIND, group.others)
            if not self._finishes(number, group, own_stock, own_waste, bytes(levels), redeals):
                return True
        return False

    def _finishes(
        self, number: int, group: _Group, stock: bytes, waste: bytes, levels: bytes, redeals: int
    ) -> bool:
        """Whether the group's smaller game is won from here.

        ``stock`` and ``waste`` hold kinds; ``levels`` each pair's two
        heights, lower first. Searched depth-first to the end: every move
        takes a card home, deals or redeals, so nothing repeats. A card for
        the lower twin of its pair, or for two twins of one height, goes
        home at once (its last open place: playing it first changes nothing
        else in any line that wins); a card for the taller twin alone is a
        choice, since the lower one still wants the kind.
        """
        if levels == group.finished:
            return True
        known = self._known
        key = (number, stock, waste, levels, redeals)
        answer = known.get(key)
        if answer is not None:
            return answer
        answer = False
        if waste:
            top = waste[-1]
            at = 2 * group.pair_of[top]
            height, low, high = group.height_of[top], levels[at], levels[at + 1]
            # The lower twin's card, or that of two twins at one height, has its last
            # open place there: played at once. The taller twin's alone is a choice.
            last_place = height == low
            if last_place or height == high:
                raised = bytes(sorted((low + 1, high))) if last_place else bytes((low, high + 1))
                played = levels[:at] + raised + levels[at + 2 :]
                answer = self._finishes(number, group, stock, waste[:-1], played, redeals)
                if last_place:
                    return self._keep(key, answer)
        if not answer and stock:
            answer = self._finishes(number, group, stock[:-1], waste + stock[-1:], levels, redeals)
        elif not answer and redeals and waste:
            # The redeal (once the group's stock is out: the rest are others' deals):
            # the waste's bottom card is dealt first.
            answer = self._finishes(number, group, waste[::-1], b"", levels, redeals - 1)
        return self._keep(key, answer)

    def _keep(self, key: tuple[int, bytes, bytes, bytes, int], answer: bool) -> bool:
        known = self._known
        if len(known) >= KNOWN_AT_MOST:
            known.clear()
        known[key] = answer
        return answer
