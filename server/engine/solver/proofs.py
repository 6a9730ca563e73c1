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

from collections.abc import Callable, Iterable, Sequence

__all__ = ["Places", "deals_lost", "dealt_lost", "stuck"]

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
    can_leave = _leaving(ready, heights, sequences, places)

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


def dealt_lost(
    stacks: Iterable[Sequence[int]],
    waste: Sequence[int],
    stock: Sequence[int],
    redeals: int,
    heights: Sequence[int],
    sequences: Sequence[Sequence[int]],
    places: Places,
) -> bool:
    """Whether a game whose waste feeds only the foundations is lost even in a relaxation
    that keeps the order of the stock, of the waste and of every redeal.

    The ``waste`` (bottom first) is a stack; the ``stock`` (its top, the
    next card dealt, last) comes onto it one card at a time; each of the
    ``redeals`` left turns the waste over into a new stock, its bottom card
    dealt first; ``stacks`` (the ladies' columns) never grow. :func:`stuck`
    takes every card of the stock as available at any time; here a dealt card
    that cannot go home at once lies on top of every card left in the waste,
    as it does in the game.

    The relaxation: a kind once home serves every foundation (copies are not
    used up). Taking a card home only ever adds kinds that later cards may
    need and uncovers others, so the relaxed player takes home every card it
    can before each deal, and that is the best it can do. By induction over
    the real game's moves, every card a real line has home before a deal,
    the relaxed player has home before the same deal, and the cards left on
    its waste are a part of the real waste, in the same order: a card the
    real line takes home is then on top for the relaxed player too, unless
    already home. So a card the relaxed player never takes home is a card
    no line takes home: the game is lost.
    """
    home: set[int] = set()
    can_leave = _leaving(home, heights, sequences, places)

    pile = list(waste)
    columns = [list(stack) for stack in stacks if stack]
    piles = [pile, *columns]  # the waste (replaced at each redeal), then the columns
    _take_off(piles, home, can_leave)
    deals: Sequence[int] = stock[::-1]
    for left in range(redeals, -1, -1):
        for card in deals:
            kind = card % 52
            if can_leave(kind):
                home.add(kind)
                _take_off(piles, home, can_leave)
            else:
                pile.append(card)
        if not pile or not left:
            break
        deals, pile = pile, []  # the redeal: the waste's bottom card is dealt first
        piles[0] = pile
    return bool(pile) or any(columns)


def deals_lost(
    stacks: Sequence[Sequence[int]],
    deals: Iterable[Sequence[tuple[int, int]]],
    ready: Iterable[int],
    heights: Sequence[int],
    sequences: Sequence[Sequence[int]],
    places: Places,
) -> bool:
    """Whether some card can never leave ``stacks``, in a relaxation that keeps the order
    in which the stock's cards land on them (the Parade games' depots).

    Each of ``deals`` puts its cards, as (stack's place in ``stacks``, card
    id), on top of the stacks; the kinds in ``ready`` are available at any
    time. :func:`stuck` counts every stock card as available from the start;
    here a dealt card that cannot leave at once covers its stack's cards as it
    does in the game, and the cards it covers wait for it.

    The relaxation is :func:`dealt_lost`'s: a kind once available serves every
    foundation, so the relaxed player takes off every stack top it can
    before each deal. Where the cards land is fixed by the deals alone, not
    by the play between them. By induction over the deals, every card a real
    line has taken off before a deal, the relaxed player has taken off too,
    and each relaxed stack keeps a part of the real one, in the same order.
    So a card the relaxed player never takes off, no line does: the game is
    lost.
    """
    available = set(ready)
    can_leave = _leaving(available, heights, sequences, places)
    piles = [list(stack) for stack in stacks]
    _take_off(piles, available, can_leave)
    for deal in deals:
        for stack, card in deal:
            piles[stack].append(card)
        _take_off(piles, available, can_leave)
    return any(piles)


def _take_off(
    piles: Sequence[list[int]], available: set[int], can_leave: Callable[[int], bool]
) -> None:
    """Take every top card that can leave off ``piles``, its kind into ``available``, until
    none can."""
    moved = True
    while moved:
        moved = False
        for pile in piles:
            while pile and can_leave(kind := pile[-1] % 52):
                available.add(kind)
                pile.pop()
                moved = True


def _leaving(
    available: set[int],
    heights: Sequence[int],
    sequences: Sequence[Sequence[int]],
    places: Places,
) -> Callable[[int], bool]:
    """Whether a card of a kind can leave its stack: some foundation that still wants the
    kind can be built up to it from the kinds in ``available`` (read at each call: it only
    grows, so a kind found able to leave is remembered as such)."""
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
            while height < position and sequence[height] in available:
                height += 1
            if height == position:
                leaves.add(kind)
                return True
        if not wanted:
            leaves.add(kind)
            return True
        return False

    return can_leave
