"""Cheap proofs that a position is lost: cards that can never leave their pile.

Each family names its *stacks*: piles whose cards, for the rest of the game,
leave only from the top and only for a foundation (or, in the Parade games,
a base card for a space and an ace for the discard pile). Everything else
that is not home counts as available at any time. That is a relaxation: it
lets the player do everything the rules allow and more. In it, a stack card
can leave once every card above it has left and some foundation that still
wants its kind can be built up to it from kinds available by then (copies
are not used up, so a kind once available serves every foundation). Cards
are freed until nothing changes; a card still stuck then can never leave in
the real game either, and since a won game has every card home, the
position is lost.

This takes in the simpler rule used before it (every copy of a kind lies
under cards that must wait for that kind): there the cards above can never
be freed, and the kind never becomes available.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["Places", "stuck"]

#: Card kind -> every (foundation, position in its sequence) that takes that kind.
Places = Sequence[tuple[tuple[int, int], ...]]


def stuck(
    stacks: Iterable[Sequence[int]],
    ready: set[int],
    heights: Sequence[int],
    sequences: Sequence[Sequence[int]],
    places: Places,
) -> bool:
    """Whether some card on ``stacks`` (card ids, bottom first) can never leave its stack.

    ``ready`` holds the kinds of the cards not home and not on a stack (it
    is added to); foundation ``f`` has ``heights[f]`` cards and builds
    ``sequences[f]`` (card kinds); ``places[kind]`` lists where a kind goes,
    and is empty for a kind that leaves without a foundation (a Parade ace
    to the discard pile).
    """
    piles = []
    for stack in stacks:
        if len(stack) > 1:
            piles.append(stack)
        elif stack:
            # A lone card covers nothing: counting it as available only makes
            # the relaxation kinder (so still sound), and saves the work.
            ready.add(stack[0] % 52)
    if not piles:
        return False
    leaves: set[int] = set()

    def can_leave(kind: int) -> bool:
        if kind in leaves:
            return True
        wanted = places[kind]
        for foundation, position in wanted:
            height = heights[foundation]
            if position < height:
                continue  # that place is filled
            sequence = sequences[foundation]
            while height < position and sequence[height] in ready:
                height += 1
            if height == position:
                leaves.add(kind)
                return True
        if not wanted:
            leaves.add(kind)
            return True
        return False

    tops = [len(pile) for pile in piles]
    progress = True
    while progress:
        progress = False
        for n, pile in enumerate(piles):
            top = tops[n]
            while top and can_leave(kind := pile[top - 1] % 52):
                ready.add(kind)
                top -= 1
            if top != tops[n]:
                tops[n] = top
                progress = True
    return any(tops)
