"""A proof that some Parade chain's two foundations can never both be finished.

In the Parade games each row and suit (a *chain*: 2-5-8-J of spades in the
top row, say) has two foundations, one for each deck's base card, and each
of its kinds has two copies, one for each foundation. The depot proof
(:func:`.proofs.deals_lost`) lets one copy of a kind serve both
foundations, so it misses the deals lost through the order of the copies: a
copy that fits the taller foundation now must either go there, leaving the
lower one to wait for the other copy, or stay where it is, on a depot that
the next deal may cover.

:class:`ChainRuns` settles that exactly for every two chains, in a
relaxation that keeps only their own cards: each depot's cards in their
order, the stock's cards landing on the depots in the order the deals alone
decide (:meth:`~server.engine.parade.RoyalParade.landings`), the loose
Parade cards, and no shortage of spaces (a base card founds its foundation
whenever one is free). Any line of the real game, cut down to the moves of
those cards, is a line of that smaller game: a card of theirs on top of a
real depot is on top of its smaller depot too (whatever lay over it has
left, or is taken out there), a loose card stays loose, a deal lands the
same cards on the same depots, a base card into a space (or a swap, in
Virginia Reel) founds its foundation, and the moves of other cards change
nothing there. So if two chains cannot both be finished in their smaller
game, no line wins the real one. Two chains at a time see how the cards of
one bury those of the other (a chain alone sees only its copies' order).
Each smaller game has at most 16 cards and a few deals: it is searched to
the end, its answers kept by position.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from server.engine.solver.base import KIND

__all__ = ["DEPOT_END", "NO_CARD", "ChainRuns", "deal_bytes"]

#: Chains searched together (two: how the cards of one bury the other's).
TOGETHER = 2
#: Positions of the smaller games whose answer is kept (then forgotten, all at once).
KNOWN_AT_MOST = 300_000
#: Ends each depot in the bytes :meth:`ChainRuns.lost` is given.
DEPOT_END = 255
#: A deal's depot that gets no card (of the deal, or of the chains searched).
NO_CARD = 254
#: Card ids of the two decks.
_CARDS = 104
_END = bytes((DEPOT_END,))


def deal_bytes(deals: Sequence[Sequence[tuple[int, int]]], depots: int) -> bytes:
    """``deals`` (each a list of (depot's place, card id)) as :meth:`ChainRuns.lost` takes
    them: ``depots`` bytes a deal, the card landing on each depot or :data:`NO_CARD`."""
    out = bytearray()
    for deal in deals:
        row = bytearray([NO_CARD]) * depots
        for depot, card in deal:
            row[depot] = card
        out += row
    return bytes(out)


@dataclass(frozen=True, slots=True)
class _Group:
    """Some chains and their cards, searched together."""

    #: The group's chains, by their place in the list :class:`ChainRuns` was given.
    members: tuple[int, ...]
    #: Card kind -> which of the group's chains takes it (only the group's own kinds are read).
    chain_of: bytes
    #: Card kind -> its place in its chain, counted as a height (the base card's is 0).
    height_of: bytes
    #: Every chain finished: each chain's two heights.
    finished: bytes
    #: Card ids of every other kind, deleted by ``bytes.translate``.
    others: bytes
    #: Card id -> kind, :data:`NO_CARD` for every other kind's card (in the deals; elsewhere
    #: ``others`` are deleted first), and the markers :data:`NO_CARD` and :data:`DEPOT_END` kept.
    landing: bytes


#: A chain: its two foundations (places in the heights), and its kinds, base card first.
Chain = tuple[tuple[int, int], tuple[int, ...]]


@functools.cache
def _groups(chains: tuple[Chain, ...], together: int) -> tuple[_Group, ...]:
    """Every ``together`` of ``chains`` with their tables: made once per game (a solve, a
    hint or an expert's sample each make a family, and so a :class:`ChainRuns`)."""
    return tuple(
        _group(members, [chains[c] for c in members])
        for members in combinations(range(len(chains)), together)
    )


def _group(members: tuple[int, ...], chains: Sequence[Chain]) -> _Group:
    chain_of, height_of = bytearray(52), bytearray(52)
    kinds: set[int] = set()
    for n, (_, sequence) in enumerate(chains):
        for height, kind in enumerate(sequence):
            chain_of[kind], height_of[kind] = n, height
        kinds.update(sequence)
    finished = bytes(len(sequence) for _, sequence in chains for _ in range(2))
    others = bytes(card for card in range(_CARDS) if card % 52 not in kinds)
    landing = bytes(
        (card % 52 if card % 52 in kinds else NO_CARD) if card < _CARDS else card
        for card in range(256)
    )
    return _Group(members, bytes(chain_of), bytes(height_of), finished, others, landing)


class ChainRuns:
    """Whether every ``together`` chains (each a row and suit's two foundations) can still
    all be finished.

    ``chains[c]`` holds chain ``c``'s two foundations (positions in the
    heights :meth:`lost` is given) and the kinds it builds, base card
    first; ``depots`` is how many depots a deal covers.
    """

    def __init__(
        self,
        chains: Sequence[tuple[tuple[int, int], Sequence[int]]],
        depots: int,
        together: int = TOGETHER,
    ) -> None:
        self.depots = depots
        self._places = [places for places, _ in chains]
        self._groups = _groups(tuple((places, tuple(kinds)) for places, kinds in chains), together)
        self._known: dict[tuple[int, bytes, bytes, bytes, bytes], bool] = {}
        #: The deals (as :func:`deal_bytes` gives them) cut down to each group, kept.
        self._deals: dict[bytes, list[bytes]] = {}

    def lost(self, depots: bytes, deals: bytes, loose: bytes, heights: Sequence[int]) -> bool:
        """Whether some chains cannot all be finished even with every other card out of the way.

        ``depots`` holds each depot's card ids, bottom first, each depot
        ended by :data:`DEPOT_END`; ``deals`` the deals still to come
        (:func:`deal_bytes`); ``loose`` the card ids of the loose Parade
        cards; ``heights[f]`` counts foundation ``f``'s cards (0: not founded).
        """
        known = self._known
        if len(known) > KNOWN_AT_MOST or len(self._deals) > KNOWN_AT_MOST // 1000:
            known.clear()
            self._deals.clear()
        own_deals = self._deals.get(deals)
        if own_deals is None:
            own_deals = self._deals[deals] = [self._own_deals(deals, g) for g in self._groups]
        levels_of = [
            bytes(sorted((heights[first], heights[second]))) for first, second in self._places
        ]
        loose = bytes(sorted(loose.translate(KIND)))  # and so each group's share of it
        for number, group in enumerate(self._groups):
            levels = b"".join([levels_of[chain] for chain in group.members])
            if levels == group.finished:
                continue
            deals_here = own_deals[number]
            own_depots = depots.translate(group.landing, group.others)
            own_loose = loose.translate(group.landing, group.others)
            # Most moves leave most groups' cards where they were: their answer is known.
            key = (number, deals_here, own_depots, own_loose, levels)
            answer = known.get(key)
            if answer is None:
                piles = own_depots.split(_END)[:-1]
                answer = self._finishes(number, group, deals_here, piles, own_loose, levels)
                known[key] = answer
            if not answer:
                return True
        return False

    def _own_deals(self, deals: bytes, group: _Group) -> bytes:
        """The deals that land a card of the group, the others' cards left out."""
        size = self.depots
        cut = deals.translate(group.landing)
        empty = bytes([NO_CARD]) * size
        return b"".join(
            deal
            for start in range(0, len(cut), size)
            if (deal := cut[start : start + size]) != empty
        )

    def _finishes(
        self,
        number: int,
        group: _Group,
        deals: bytes,
        depots: list[bytes],
        loose: bytes,
        levels: bytes,
    ) -> bool:
        """Whether the group's smaller game is won from here.

        ``depots`` and ``loose`` hold kinds; ``levels`` each chain's two
        heights, lower first. A card for the lower foundation of its chain,
        or for two of one height, goes home at once: its last open place, or
        one of two alike, so playing it first changes nothing else in any
        line that wins, and only frees what lay under it. A card for the
        taller alone is a choice (the lower one still wants its kind), and so
        is the next deal. Searched depth-first to the end: every move takes a
        card home or deals, so nothing repeats.
        """
        chain_of, height_of = group.chain_of, group.height_of
        piles = list(depots)
        spare = bytearray(loose)
        heights = bytearray(levels)
        played = True
        while played:  # every card that has its last open place goes there
            played = False
            for n, pile in enumerate(piles):
                while pile:
                    kind = pile[-1]
                    at = 2 * chain_of[kind]
                    if height_of[kind] != heights[at]:
                        break
                    heights[at] += 1
                    if heights[at] > heights[at + 1]:
                        heights[at], heights[at + 1] = heights[at + 1], heights[at]
                    pile = pile[:-1]
                    played = True
                piles[n] = pile
            for kind in bytes(spare):
                at = 2 * chain_of[kind]
                if height_of[kind] == heights[at]:
                    heights[at] += 1
                    if heights[at] > heights[at + 1]:
                        heights[at], heights[at + 1] = heights[at + 1], heights[at]
                    spare.remove(kind)
                    played = True
        if heights == group.finished:
            return True
        if not deals:
            piles.sort()  # no deal will tell the depots apart
        key = (number, deals, b"".join(pile + _END for pile in piles), bytes(spare), bytes(heights))
        known = self._known
        answer = known.get(key)
        if answer is not None:
            return answer
        answer = self._choices(number, group, deals, piles, bytes(spare), bytes(heights))
        known[key] = answer
        return answer

    def _choices(
        self,
        number: int,
        group: _Group,
        deals: bytes,
        piles: list[bytes],
        spare: bytes,
        heights: bytes,
    ) -> bool:
        """Whether some card for a taller foundation, or the next deal, wins from here."""
        chain_of, height_of = group.chain_of, group.height_of

        def taller(kind: int) -> bytes | None:
            at = 2 * chain_of[kind]
            if height_of[kind] != heights[at + 1]:
                return None
            return heights[: at + 1] + bytes((heights[at + 1] + 1,)) + heights[at + 2 :]

        for n, pile in enumerate(piles):
            if pile and (raised := taller(pile[-1])) is not None:
                rest = [*piles[:n], pile[:-1], *piles[n + 1 :]]
                if self._finishes(number, group, deals, rest, spare, raised):
                    return True
        for kind in set(spare):
            if (raised := taller(kind)) is not None:
                left = bytearray(spare)
                left.remove(kind)
                if self._finishes(number, group, deals, piles, bytes(left), raised):
                    return True
        if not deals:
            return False
        size = self.depots
        landed = [
            pile + bytes((card,)) if card != NO_CARD else pile
            for pile, card in zip(piles, deals[:size], strict=True)
        ]
        return self._finishes(number, group, deals[size:], landed, spare, heights)
