"""The solver's static proofs of a lost position (server/engine/solver/proofs.py).

Each is checked on hand-built cases, and against the plain search on small
positions of every variant: a position called dead must have no winning line.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import VARIANTS, Game, State, find_variant
from server.engine.parade import RoyalParade
from server.engine.solver import family_of
from server.engine.solver.base import Family, foundation_places
from server.engine.solver.chains import DEPOT_END, ChainRuns, deal_bytes
from server.engine.solver.parade import ParadeFamily
from server.engine.solver.proofs import deals_lost, dealt_lost, stuck
from server.engine.solver.stockwaste import StockWasteFamily
from server.engine.solver.twins import TwinRuns
from server.engine.stockwaste import StockWasteGame
from tests.engine.positions import card, cards, run
from tests.engine.small_positions import (
    chains_position,
    exhaustive,
    small_position,
    twins_position,
)

#: Two foundations of kinds 0, 1 and 2, 3 (card ids are kinds here: one deck).
SEQUENCES = ((0, 1), (2, 3))
PLACES = foundation_places(SEQUENCES)


def test_a_card_under_one_that_waits_for_it_is_stuck() -> None:
    """0 under 1 on the only stack: 1 needs 0 home first, so neither ever leaves."""
    assert stuck([(0, 1)], {2, 3}, [0, 0], SEQUENCES, PLACES)
    assert not stuck([(1, 0)], {2, 3}, [0, 0], SEQUENCES, PLACES)


def test_a_cycle_across_two_stacks_is_stuck() -> None:
    """3 waits for 2 (under 1), 1 waits for 0 (under 3): a deadlock no single stack shows."""
    assert stuck([(0, 3), (2, 1)], set(), [0, 0], SEQUENCES, PLACES)
    assert not stuck([(0, 3), (1, 2)], set(), [0, 0], SEQUENCES, PLACES)


def test_a_card_whose_kind_is_available_elsewhere_frees_the_stack() -> None:
    """Another copy of 0 off the stacks lets 1 go home, and then the 0 under it."""
    assert not stuck([(0, 1)], {0, 2, 3}, [0, 0], SEQUENCES, PLACES)


def test_a_foundation_past_the_buried_kind_takes_the_card_above() -> None:
    """Twin foundations of 0, 1 (two decks): one holds a 0, the 1 goes there, then the 0."""
    twins = ((0, 1), (0, 1))
    assert not stuck([(0, 1)], set(), [1, 0], twins, foundation_places(twins))
    assert stuck([(0, 1)], set(), [0, 0], twins, foundation_places(twins))


def test_a_dealt_card_that_cannot_go_home_covers_the_waste() -> None:
    """Waste 2 under 1 (which waits for 0); the stock deals 3 (waits for 2), then 0. The 0
    frees nothing: the 1 lies under the 3, the 2 under the 1. :func:`stuck`, which takes
    the stock as available at any time, sees no deadlock; dealing 0 first wins; a redeal
    deals 2, 1, 3 again, which all go home."""
    waste = (2, 1)
    assert not stuck([waste], {0, 3}, [0, 0], SEQUENCES, PLACES)
    assert dealt_lost([], waste, (0, 3), 0, [0, 0], SEQUENCES, PLACES)
    assert not dealt_lost([], waste, (3, 0), 0, [0, 0], SEQUENCES, PLACES)
    assert not dealt_lost([], waste, (0, 3), 1, [0, 0], SEQUENCES, PLACES)


def test_a_column_under_the_stock_waits_like_the_waste() -> None:
    """A ladies' column holding 0 under 1 never frees itself, whatever is dealt."""
    assert dealt_lost([(0, 1)], (), (3, 2), 1, [0, 0], SEQUENCES, PLACES)
    assert not dealt_lost([(1, 0)], (), (3, 2), 0, [0, 0], SEQUENCES, PLACES)


#: The games whose waste feeds only the foundations, where ``dead`` keeps the stock's order.
STACK_ONLY = ("contradance", "quadrille")


def test_a_dead_stack_only_position_has_no_winning_line() -> None:
    """Contradance and Quadrille positions further from the end (up to 16 cards out, any
    pass): whenever ``dead`` (the stock's order kept) calls one lost, the plain search
    finds no win; both answers occur."""
    for variant_id in STACK_ONLY:
        dead, wins, _ = _dead_against_search(variant_id, range(120), (6, 16))
        assert dead >= 5 and wins >= 5, (variant_id, dead, wins)


def _dead_against_search(
    variant_id: str, seeds: range, sizes: tuple[int, int]
) -> tuple[int, int, int]:
    """Small positions of ``variant_id`` (``sizes`` cards out): asserts that none that
    ``dead`` calls lost is won by the plain search, and counts the dead ones, the won
    ones and those with cards in the stock."""
    game = find_variant(variant_id)
    family = family_of(game)
    dead = wins = dealt = 0
    for seed in seeds:
        rng = random.Random(seed)
        state = small_position(game, rng, rng.randint(*sizes))
        dealt += bool(state.piles[game.index["s"]])
        family.begin(state)
        won = exhaustive(game, state)
        wins += won
        if family.dead(state):
            dead += 1
            assert not won, (variant_id, seed)
    return dead, wins, dealt


def test_a_card_dealt_onto_a_depot_covers_it_until_it_can_leave() -> None:
    """Depot 2 under 1 (which waits for 0); the next deal puts 3 (which waits for 2) on it
    and 0 on a second depot. :func:`stuck`, which takes the stock as available from the
    start, sees no deadlock. In the game the 3 covers the 1 before the 0 comes: lost.
    Dealt the other way round (0 onto the first depot, 3 onto the second), the 0 goes home
    and frees the 1, then the 2, then the 3."""
    depots = [(2, 1), ()]
    assert not stuck(depots, {0, 3}, [0, 0], SEQUENCES, PLACES)
    assert deals_lost(depots, [[(0, 3), (1, 0)]], (), [0, 0], SEQUENCES, PLACES)
    assert not deals_lost(depots, [[(0, 0), (1, 3)]], (), [0, 0], SEQUENCES, PLACES)
    # A card dealt in an earlier deal is off its depot before the next deal covers it.
    assert not deals_lost(depots, [[(1, 0)], [(0, 3)]], (), [0, 0], SEQUENCES, PLACES)


#: The games whose depots take the stock in an order no play changes.
PARADES = ("royal-parade", "royal-parade-bergholt", "virginia-reel")


def test_a_dead_parade_position_has_no_winning_line() -> None:
    """Parade positions with cards in the stock: whenever ``dead`` (the landings kept)
    calls one lost, the plain search finds no win; both answers occur."""
    for variant_id in PARADES:
        dead, wins, dealt = _dead_against_search(variant_id, range(150), (6, 14))
        assert dead >= 5 and wins >= 5 and dealt >= 50, (variant_id, dead, wins, dealt)


def test_a_kind_with_no_foundation_always_leaves() -> None:
    """A Parade ace (no place) leaves for the discard pile whatever lies around."""
    places = foundation_places(((0, 1),))
    assert not stuck([(1, 0, 5)], set(), [0], ((0, 1),), places)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 2**32 - 1), st.integers(3, 10))
def test_a_dead_position_has_no_winning_line(variant_id: str, seed: int, out: int) -> None:
    """Whenever a family calls a small position dead, the plain search finds no win."""
    game = find_variant(variant_id)
    state: State = small_position(game, random.Random(seed), out)
    if family_of(game).dead(state):
        assert not exhaustive(game, state)


@pytest.mark.parametrize("variant", ["contradance", "quadrille"])
def test_the_proofs_skipped_after_a_move_would_have_found_the_position_alive(variant: str) -> None:
    """Where the waste feeds no reserve, ``dead`` skips the deal-order proof after a deal
    from a quiet live position, and after a waste card played to the last open place of
    its kind from a live one: the proof would answer as it did before the move. Along
    random games, a family that has seen the position before each move answers as one
    that has not (``begin`` forgets), after every legal move, skipped or not."""
    game = VARIANTS[variant]
    warm, cold = family_of(game), family_of(game)
    rng = random.Random(11)
    lost = 0
    for seed in range(12):
        state = game.deal(seed)
        warm.begin(state)
        while moves := game.legal_moves(state):
            for move in moves:
                child = game.apply(state, move)
                warm.dead(state)
                cold.begin(state)
                answer = cold.dead(child)
                assert warm.dead(child) == answer, (seed, state.moves, move.text())
                lost += answer
            state = game.apply(state, rng.choice(moves))
    assert lost  # the games reach positions the proof finds lost


def test_a_card_played_onto_the_taller_twin_is_proved_again() -> None:
    """The play that ``dead`` may not skip the proof after: a Contradance card to the
    taller of two twins. In the last pass, with the spade fives built down to the four on
    one foundation and not at all on its twin, the three of spades on top of the waste
    goes onto the four; the other three of spades lies on the four the twin needs. The
    proof's run from before the play lets both threes use the one place (a kind once
    home serves every foundation) and finds the position alive; after it, the other three
    can never leave, and a family that saw the position before the play says so too."""
    game = VARIANTS["contradance"]
    index = game.index
    down, up = (5, 4, 3, 2, 1, 13), range(6, 13)
    piles: list[tuple[int, ...]] = [() for _ in game.pile_ids]
    for n in range(16):
        suit, deck, ranks = "♣♦♥♠"[n % 4], n // 4 % 2, down if n < 8 else up
        piles[index[f"f{n + 1}"]] = run(suit, ranks, deck)
    piles[index["f4"]] = cards("5♠ 4♠")
    piles[index["f8"]] = cards("5♠", deck=1)
    waste = [("K♠", 1), ("K♠", 0), ("A♠", 1), ("A♠", 0), ("2♠", 1), ("2♠", 0), ("4♠", 1)]
    waste += [("3♠", 1), ("3♠", 0)]  # the other three on the twin's four; this one on top
    piles[index["w"]] = tuple(card(text, deck) for text, deck in waste)
    state = State(game.id, tuple(piles), passes=game.redeals)
    assert sorted(c for pile in state.piles for c in pile) == list(range(104))
    play = game.legal_moves(state)[0]
    assert play.text() == "w>f4"
    after = game.apply(state, play)

    # The pair of spade fives alone (TwinRuns) sees the loss before the play; this test
    # is about the deal-order proof, so the families here go without it.
    assert family_of(game).dead(state)
    warm, cold = _without_twin_runs(game), _without_twin_runs(game)
    warm.begin(state)
    cold.begin(after)
    assert not warm.dead(state)
    assert cold.dead(after)
    assert warm.dead(after)


def _without_twin_runs(game: Game) -> StockWasteFamily:
    family = family_of(game)
    assert isinstance(family, StockWasteFamily)
    family.twin_runs = None
    return family


def test_twin_copies_in_the_wrong_order_lose_the_pair() -> None:
    """Twins of kinds 0, 1, 2 (card ids are kinds, plus 52 for the second copy), each
    holding its base card 0. The waste holds, bottom first, a 1, a 2, the other 2 and the
    other 1. The top 1 goes onto one twin, and a 2 after it (or the 2 waits, covering the
    rest); either way the other 2 then waits for the 1 under it. :func:`dealt_lost`, where a
    kind once home serves both twins, finds the position alive; the pair alone with its own
    cards is lost. With a redeal left, the buried 1 comes round first; in the order 2, 1,
    2, 1 each twin gets a 1 and a 2 straight off."""
    sequences = ((0, 1, 2), (0, 1, 2))
    runs = TwinRuns([(0, 1)], sequences)
    waste = bytes([1, 2, 54, 53])
    assert not dealt_lost([], waste, (), 0, [1, 1], sequences, foundation_places(sequences))
    assert runs.lost(b"", waste, [1, 1], 0)
    assert not runs.lost(b"", waste, [1, 1], 1)
    assert not runs.lost(b"", bytes([2, 1, 54, 53]), [1, 1], 0)
    # Still to deal in that order (the next card last), each 1 goes home as it comes.
    assert not runs.lost(waste[::-1], b"", [1, 1], 0)


@pytest.mark.parametrize("pairs", [1, 2])
def test_pairs_of_twins_alone_are_lost_exactly_when_no_line_wins(pairs: int) -> None:
    """Contradance positions where one or two pairs of twins have cards out (in the stock
    and the waste, any order, any pass): their own game is the whole game there, so its
    answer is the plain search's, both ways."""
    game = _contradance()
    family = family_of(game)
    lost = 0
    for seed in range(120):
        state = twins_position(game, random.Random(seed), pairs)
        answer = _twins_lost(family, state)
        assert answer == (not exhaustive(game, state)), seed
        lost += answer
    assert 15 <= lost <= 105, lost


def test_a_position_whose_twins_are_lost_has_no_winning_line() -> None:
    """Three pairs of twins with cards out: whenever ``dead`` calls a position lost the
    plain search finds no win, and some of those the deal-order proof alone finds alive."""
    game = _contradance()
    positions = (twins_position(game, random.Random(seed), 3, most=4) for seed in range(150))
    dead, missed = _dead_beside(game, _without_twin_runs(game), positions)
    assert dead >= 30 and missed >= 10, (dead, missed)


def _dead_beside(game: Game, weaker: Family, positions: Iterable[State]) -> tuple[int, int]:
    """Asserts that no position the game's family calls dead is won by the plain search;
    counts those it calls dead, and those of them that ``weaker`` finds alive."""
    family = family_of(game)
    dead = missed = 0
    for state in positions:
        family.begin(state)
        weaker.begin(state)
        if family.dead(state):
            assert not exhaustive(game, state), state
            dead += 1
            missed += not weaker.dead(state)
    return dead, missed


def _contradance() -> StockWasteGame:
    game = VARIANTS["contradance"]
    assert isinstance(game, StockWasteGame)
    return game


def _twins_lost(family: Family, state: State) -> bool:
    assert isinstance(family, StockWasteFamily) and family.twin_runs is not None
    game = family.sw
    piles = state.piles
    return family.twin_runs.lost(
        bytes(piles[game.index["s"]]),
        bytes(piles[game.waste]),
        [len(piles[f]) for f in family.foundations],
        max(0, game.redeals - state.passes),
    )


#: One chain of kinds 0-3 (card ids are kinds, plus 52 for the second copy), its two
#: foundations at places 0 and 1.
CHAIN = ((0, 1), (0, 1, 2, 3))
END = bytes((DEPOT_END,))


def test_chain_copies_in_the_wrong_order_lose_the_chain() -> None:
    """Both foundations of a chain hold their base card. A depot holds, bottom first, a 1,
    a 2, the other 2 and the other 1; the 3s lie loose. The top 1 goes onto one
    foundation, then the 2 over it must too (nothing else takes it), and the other 2 then
    waits for the 1 under it. :func:`deals_lost`, where a kind once home serves both
    foundations, finds the position alive; the chain alone with its own cards is lost.
    In the order 2, 1, 2, 1 each foundation gets a 1 and a 2 straight off."""
    runs = ChainRuns([CHAIN], depots=1, together=1)
    sequences = (CHAIN[1], CHAIN[1])
    depot = (1, 2, 54, 53)
    assert not deals_lost([depot], [], {3}, [1, 1], sequences, foundation_places(sequences))
    assert runs.lost(bytes(depot) + END, b"", bytes([3, 55]), [1, 1])
    assert not runs.lost(bytes([2, 1, 54, 53]) + END, b"", bytes([3, 55]), [1, 1])
    # The same copies dealt onto the depot one at a time: the order decides again.
    threes = bytes([3, 55])
    assert runs.lost(bytes([1, 2]) + END, deal_bytes([[(0, 54)], [(0, 53)]], 1), threes, [1, 1])
    assert not runs.lost(bytes([1, 2]) + END, deal_bytes([[(0, 53)], [(0, 54)]], 1), threes, [1, 1])


@pytest.mark.parametrize("variant", PARADES)
@pytest.mark.parametrize("chains", [1, 2])
def test_chains_alone_are_lost_exactly_when_no_line_wins(variant: str, chains: int) -> None:
    """Parade positions where one or two chains have cards out (on the depots and in the
    stock, any order, base cards kept): their own game is the whole game there, so its
    answer is the plain search's, both ways."""
    game = VARIANTS[variant]
    assert isinstance(game, RoyalParade)
    family = family_of(game)
    assert isinstance(family, ParadeFamily)
    places = [((2 * c, 2 * c + 1), family.sequences[2 * c]) for c in range(12)]
    runs = ChainRuns(places, len(game.depots), together=chains)
    lost = 0
    for seed in range(150):
        state = chains_position(game, random.Random(seed), chains)
        family.begin(state)
        answer = family.chains_lost(state, runs)
        assert answer == (not exhaustive(game, state)), seed
        lost += answer
    assert 10 <= lost <= 140, lost


@pytest.mark.parametrize("variant", PARADES)
def test_a_position_whose_chains_are_lost_has_no_winning_line(variant: str) -> None:
    """Three chains with cards out: whenever ``dead`` calls a position lost the plain
    search finds no win, and some of those the depot proof alone finds alive."""
    game = VARIANTS[variant]
    assert isinstance(game, RoyalParade)
    depots_only = family_of(game)
    assert isinstance(depots_only, ParadeFamily) and depots_only.chain_runs is not None
    depots_only.chain_runs = None
    positions = (chains_position(game, random.Random(seed), 3) for seed in range(150))
    dead, missed = _dead_beside(game, depots_only, positions)
    assert dead >= 10 and missed >= 5, (dead, missed)
