"""A proof that a pair of twin foundations can never both be finished (Contradance).

Contradance's foundations come in twins: two of each suit build 5-4-3-2-A-K,
two build 6-7-...-Q, and each kind has two copies, one for each twin. The
other proofs (:mod:`.proofs`) let one copy of a kind serve both twins, so
they miss the deals that are lost because the copies come in the wrong
order: a copy that fits the taller twin now must either go there, leaving
the shorter one to wait for the other copy, or lie on the waste, covering
whatever the twins need next.

:class:`TwinRuns` settles that exactly for each pair alone, in a
relaxation that keeps only the pair's own cards: the stock, the waste and
every redeal in their order, every other card taken out. Any line of the
real game, cut down to the moves of the pair's cards, is a line of that
smaller game (a pair's card on top of the real waste is on top of the
pair's own waste too; a deal of another card changes nothing there; a
redeal turns both wastes over alike). So if some pair cannot be finished
in its smaller game, no line wins the real one. Each smaller game has at
most 12 cards, and is searched to the end, its answers kept by position.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine.solver.base import KIND

__all__ = ["TwinRuns"]

#: Positions of the pairs' smaller games whose answer is kept (then forgotten, all at once).
KNOWN_AT_MOST = 200_000


class TwinRuns:
    """Which pairs of twin foundations can still be finished, each pair on its own.

    ``pairs`` holds each pair's two foundations (positions in ``heights``
    as :meth:`lost` is given them), ``sequences[f]`` the kinds foundation
    ``f`` builds, from its base card up.
    """

    def __init__(
        self, pairs: Sequence[tuple[int, int]], sequences: Sequence[Sequence[int]]
    ) -> None:
        self._pairs = []
        for first, second in pairs:
            sequence = bytes(sequences[first])
            if sequence != bytes(sequences[second]):
                raise ValueError("twin foundations build the same sequence")
            # Card id -> kind, every card of another pair deleted, in one bytes.translate.
            others = bytes(card for card in range(256) if card % 52 not in sequence)
            self._pairs.append((first, second, sequence, others))
        self._known: dict[tuple[bytes, bytes, bytes, int, int, int], bool] = {}

    def lost(self, stock: bytes, waste: bytes, heights: Sequence[int], redeals: int) -> bool:
        """Whether some pair cannot be finished even with every other card out of the way.

        ``stock`` and ``waste`` are card ids (the stock's next card last, the
        waste's top card last); ``heights[f]`` counts foundation ``f``'s cards;
        ``redeals`` are those left.
        """
        for first, second, sequence, others in self._pairs:
            low, high = sorted((heights[first], heights[second]))
            own_stock = stock.translate(KIND, others)
            own_waste = waste.translate(KIND, others)
            if not self._finishes(sequence, own_stock, own_waste, low, high, redeals):
                return True
        return False

    def _finishes(
        self, sequence: bytes, stock: bytes, waste: bytes, low: int, high: int, redeals: int
    ) -> bool:
        """Whether the pair's smaller game is won from here (kinds, heights low <= high).

        Searched depth-first to the end: every move takes a card home, deals
        or redeals, so nothing repeats. A card for the lower twin, or for
        two twins of one height, goes home at once (its last open place:
        playing it first changes nothing else in any line that wins); a card
        for the taller twin alone is a choice, since the lower one still
        wants the kind.
        """
        known = self._known
        key = (sequence, stock, waste, low, high, redeals)
        answer = known.get(key)
        if answer is not None:
            return answer
        end = len(sequence)
        if low == end:
            return True
        top = waste[-1] if waste else None
        if top is not None and sequence[low] == top:
            # The lower twin's card (or both twins', at one height): its last open place.
            low, high = sorted((low + 1, high))
            answer = self._finishes(sequence, stock, waste[:-1], low, high, redeals)
        else:
            answer = (
                top is not None
                and high < end
                and sequence[high] == top
                and self._finishes(sequence, stock, waste[:-1], low, high + 1, redeals)
            )
            if not answer and stock:
                answer = self._finishes(
                    sequence, stock[:-1], waste + stock[-1:], low, high, redeals
                )
            elif not answer and redeals and waste:
                # The redeal (once the pair's stock is out: the rest are others' deals):
                # the waste's bottom card is dealt first.
                answer = self._finishes(sequence, waste[::-1], b"", low, high, redeals - 1)
        if len(known) >= KNOWN_AT_MOST:
            known.clear()
        known[key] = answer
        return answer
