"""Small positions for the solver tests: a deal played most of the way home at random, and a
plain exhaustive search that says whether such a position can still be won."""

from __future__ import annotations

import random

from protocol.cards import card_rank, card_suit, kind_of
from server.engine import Game, State
from server.engine.duchess import FOUNDATIONS as DUCHESS_FOUNDATIONS
from server.engine.duchess import GrandDuchess
from server.engine.parade import BASE_ROW, ROW_RANKS, RoyalParade
from server.engine.stockwaste import StockWasteGame


def exhaustive(game: Game, state: State, budget: int = 200_000) -> bool:
    """Whether any sequence of legal moves wins: every move tried, only exact repeats skipped."""
    seen: set[tuple[object, ...]] = set()
    count = 0

    def search(position: State) -> bool:
        nonlocal count
        count += 1
        assert count < budget, "position too big for the plain search"
        if game.is_won(position):
            return True
        key = (position.piles, position.passes, position.deals > 0)
        if key in seen:
            return False
        seen.add(key)
        return any(search(game.apply(position, move)) for move in game.legal_moves(position))

    return search(state)


def foundation_cards(game: Game) -> dict[int, list[int]]:
    """Foundation pile index -> its cards when complete, each card id used once."""
    used: dict[int, int] = {}

    def take(kind: int) -> int:
        copy = used.get(kind, 0)
        used[kind] = copy + 1
        return kind + 52 * copy

    if isinstance(game, StockWasteGame):
        return {
            game.index[f"f{n}"]: [take(kind) for kind in spot[0].kinds]
            for n, spot in enumerate(game.foundations, 1)
        }
    if isinstance(game, GrandDuchess):
        return {
            pile: [take(kind) for kind in foundation.kinds]
            for pile, foundation in zip(game.foundations, DUCHESS_FOUNDATIONS, strict=True)
        }
    assert isinstance(game, RoyalParade)
    built: dict[int, list[int]] = {}
    for row, spots in enumerate(game.rows):
        for n, spot in enumerate(spots):
            built[spot] = [take(kind_of(n % 4, rank)) for rank in ROW_RANKS[row]]
    return built


def _won_piles(game: Game, built: dict[int, list[int]]) -> list[list[int]]:
    """Every pile of ``game`` as the won game has it: the foundations ``built``, the rest
    empty, each as a list the caller changes."""
    piles: list[list[int]] = [[] for _ in game.pile_ids]
    for pile, held in built.items():
        piles[pile] = list(held)
    return piles


def small_position(game: Game, rng: random.Random, out: int) -> State:
    """A position near the end: every foundation complete, then ``out`` top cards put back.

    The cards taken back go, in a random order, onto random piles that can
    hold them: stock, waste, tableau, an empty reserve spot, a depot.
    """
    built = foundation_cards(game)
    piles = _won_piles(game, built)
    loose: list[int] = []
    tall = [pile for pile in built if len(piles[pile]) > 1]
    for _ in range(out):
        pile = rng.choice([p for p in tall if piles[p]])
        loose.append(piles[pile].pop())
    rng.shuffle(loose)
    holders = [game.index["s"]]
    singles: list[int] = []
    passes = 0
    if isinstance(game, StockWasteGame):
        holders += [game.waste, *game.tableau]
        singles = list(game.reserve)
        passes = rng.randint(0, game.redeals)
    elif isinstance(game, GrandDuchess):
        holders += [*game.tableau, game.reserve]
        passes = rng.randint(0, game.redeals)
    else:
        assert isinstance(game, RoyalParade)
        holders += list(game.depots)
    for taken in loose:
        free = [s for s in singles if not piles[s]]
        target = rng.choice(free) if free and rng.random() < 0.1 else rng.choice(holders)
        piles[target].append(taken)
    if isinstance(game, StockWasteGame):
        for spot in game.reserve:  # a reserve is full while anything can refill it
            if not piles[spot] and piles[game.waste]:
                piles[spot].append(piles[game.waste].pop())
    deals = rng.randint(0, 1)
    return State(game.id, tuple(tuple(pile) for pile in piles), passes, 0, deals)


def twins_position(game: StockWasteGame, rng: random.Random, pairs: int, most: int = 5) -> State:
    """A Contradance position where ``pairs`` pairs of twin foundations (two that build the
    same sequence) have up to ``most`` cards each taken back, shuffled into the stock and
    the waste, in any pass: the copies of a kind come back in every order."""
    built = foundation_cards(game)
    piles = _won_piles(game, built)
    twins: dict[tuple[int, ...], list[int]] = {}
    for n, spot in enumerate(game.foundations, 1):
        twins.setdefault(spot[0].kinds, []).append(game.index[f"f{n}"])
    loose: list[int] = []
    for pair in rng.sample(sorted(twins.values()), pairs):
        for pile in pair:
            for _ in range(rng.randint(0, min(most, len(piles[pile]) - 1))):
                loose.append(piles[pile].pop())
    rng.shuffle(loose)
    for taken in loose:
        piles[rng.choice([game.index["s"], game.waste])].append(taken)
    passes = rng.randint(0, game.redeals)
    return State(game.id, tuple(tuple(pile) for pile in piles), passes, 0, 1)


def reserve_position(game: StockWasteGame, rng: random.Random) -> State:
    """A position where a refilled reserve decides: a run of one foundation's top cards
    put back over the waste, the stock and maybe a reserve spot, and another card,
    whose only place is open, in a reserve spot.

    The reserve card's refill takes the waste's top card now, or a later card if it is
    played after a deal: small positions put back at random rarely depend on which,
    and the solver once played such a card at once and called some of these lost.
    Reserve spots not given a card stay empty (a position no deal leads to, which the
    rules play all the same).
    """
    built = foundation_cards(game)
    piles = _won_piles(game, built)
    run_pile, single_pile = rng.sample([p for p in built if len(built[p]) > 6], 2)
    run = [piles[run_pile].pop() for _ in range(rng.randint(3, 6))]
    rng.shuffle(run)
    spots = rng.sample(list(game.reserve), rng.randint(1, 2))
    piles[spots[0]].append(piles[single_pile].pop())
    if len(spots) > 1:
        piles[spots[1]].append(run.pop())
    on_waste = rng.randint(1, 2)
    piles[game.waste].extend(run[:on_waste])
    piles[game.stock].extend(run[on_waste:])
    passes = rng.randint(0, game.redeals)
    return State(game.id, tuple(tuple(pile) for pile in piles), passes, 0, rng.randint(0, 1))


def spaces_position(game: RoyalParade, rng: random.Random, *, stock: bool = False) -> State:
    """A Parade position with spaces to fill: one or two whole foundations (base card
    too) and a few other foundations' top cards put back on the depots (and the stock,
    if ``stock``) in a random order, leaving their spots empty; in half of them one of
    those cards lies loose in one of the spaces.

    :func:`small_position` takes only top cards, so a space and a base card to put in it
    are rare there.
    """
    built = foundation_cards(game)
    piles = _won_piles(game, built)
    loose: list[int] = []
    for spot in rng.sample(list(game.parade), rng.randint(1, 2)):
        loose.extend(piles[spot])
        piles[spot].clear()
    for _ in range(rng.randint(2, 6)):
        spot = rng.choice([p for p in game.parade if len(piles[p]) > 1])
        loose.append(piles[spot].pop())
    rng.shuffle(loose)
    spaces = [spot for spot in game.parade if not piles[spot]]
    if rng.random() < 0.5:  # a loose card in a space: its row's spaces may run short
        card = next(card for card in loose if card_rank(card) not in BASE_ROW)
        loose.remove(card)
        piles[rng.choice(spaces)].append(card)
    holders = [*game.depots, game.stock] if stock else game.depots
    for card in loose:
        piles[rng.choice(holders)].append(card)
    return State(game.id, tuple(tuple(pile) for pile in piles))


def chains_position(game: RoyalParade, rng: random.Random, chains: int, most: int = 3) -> State:
    """A Parade position where ``chains`` chains (a row and suit: its two foundations) have
    up to ``most`` top cards each taken back, base cards kept, shuffled onto two depots and
    into the stock: the copies of a kind come back in every order, often one over the
    other, and no space is wanted."""
    built = foundation_cards(game)
    piles = _won_piles(game, built)
    by_chain: dict[tuple[int, int], list[int]] = {}
    for spot in game.parade:
        by_chain.setdefault((game.row_of[spot], card_suit(piles[spot][0])), []).append(spot)
    loose: list[int] = []
    for chain in rng.sample(sorted(by_chain), chains):
        for spot in by_chain[chain]:
            for _ in range(rng.randint(0, min(most, len(piles[spot]) - 1))):
                loose.append(piles[spot].pop())
    rng.shuffle(loose)
    holders = [*rng.sample(list(game.depots), 2), game.stock]
    for card in loose:
        piles[rng.choice(holders)].append(card)
    return State(game.id, tuple(tuple(pile) for pile in piles))


__all__ = [
    "chains_position",
    "exhaustive",
    "foundation_cards",
    "reserve_position",
    "small_position",
    "spaces_position",
]
