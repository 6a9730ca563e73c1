"""The rulings of issue 17, one test each, across every variant they touch.

Virginia Reel's rotation has its own tests beside the swap in
``test_parade.py``; this file pins the rulings that cut across families: a
redeal needs something to turn over, Royal Rendezvous fills gaps from the
stock before the first deal and from the waste after it, in reading order,
and Bergholt's reversed deal is offered for a stock of 1 to 8 cards, an ace
dealt last leaving its depot without a card.
"""

from __future__ import annotations

import pytest

from protocol.moves import Move
from server.engine import VARIANTS, Game, IllegalMoveError, State, find_variant
from server.engine.stockwaste import StockWasteGame
from tests.engine.positions import card, cards, legal, pile, play, stock

#: Every variant that has a redeal.
REDEALING = [game for game in VARIANTS.values() if game.redeals > 0]
RENDEZVOUS = [find_variant("royal-rendezvous"), find_variant("royal-rendezvous-solsuite")]
BERGHOLT = find_variant("royal-parade-bergholt")


def position(game: Game, passes: int = 0, deals: int = 0, **piles: tuple[int, ...]) -> State:
    """Only the named piles (bottom card first) hold cards."""
    rows: list[tuple[int, ...]] = [() for _ in game.pile_ids]
    for pile_id, held in piles.items():
        rows[game.index[pile_id]] = held
    return State(game.id, tuple(rows), passes, 0, deals)


def test_every_redealing_variant_is_covered() -> None:
    """Six variants redeal: Gavotte, Odd and Even, Contradance, Quadrille and both Duchesses."""
    assert sorted(game.id for game in REDEALING) == [
        "contradance",
        "gavotte",
        "grand-duchess",
        "odd-and-even",
        "parisienne",
        "quadrille",
    ]


@pytest.mark.parametrize("game", REDEALING, ids=lambda g: g.id)
def test_no_redeal_with_nothing_to_turn_over(game: Game) -> None:
    """Stock and waste (or tableau and reserve) empty: no redeal is legal, and the game is over."""
    state = position(game)
    assert "redeal" not in legal(game, state)
    with pytest.raises(IllegalMoveError, match="nothing to"):
        game.apply(state, Move.redeal())
    assert game.is_over(state)


@pytest.mark.parametrize("game", REDEALING, ids=lambda g: g.id)
def test_a_single_card_is_enough_to_redeal(game: Game) -> None:
    """One card to turn over or gather makes the redeal legal, and it becomes the stock."""
    held = "w" if "w" in game.index else "t2"
    state = position(game, **{held: cards("9♥")})
    assert "redeal" in legal(game, state)
    after = play(game, state, "redeal")
    assert pile(game, after, "s") == cards("9♥") and after.passes == 1


def rendezvous(game: Game, deals: int = 0, **piles: tuple[int, ...]) -> State:
    """Royal Rendezvous, bases laid out, K♦ (wanted nowhere yet) on every reserve spot not named."""
    assert isinstance(game, StockWasteGame)
    bases = {f"f{n}": (base,) for n, base in enumerate(game.laid_out_bases(), 1)}
    kings = {f"r{n}": cards("K♦") for n in range(1, 17)}
    return position(game, deals=deals, **{**bases, **kings, **piles})


@pytest.mark.parametrize("game", RENDEZVOUS, ids=lambda g: g.id)
def test_rendezvous_gaps_before_the_first_deal_fill_from_the_stock(game: Game) -> None:
    """Before the first deal each gap takes the stock top at once, in the order they open."""
    state = rendezvous(game, r2=cards("4♥"), r10=cards("4♦"), s=stock(game, "9♥ J♣ 7♦"))
    state = play(game, state, "r10>f10", "r2>f11")
    assert pile(game, state, "r10") == cards("9♥")
    assert pile(game, state, "r2") == cards("J♣")
    assert pile(game, state, "s") == cards("7♦") and pile(game, state, "w") == ()


@pytest.mark.parametrize("game", RENDEZVOUS, ids=lambda g: g.id)
def test_rendezvous_gap_after_the_first_deal_takes_the_waste_top(game: Game) -> None:
    """Once a card has been dealt, a gap takes the waste top, not the stock's."""
    state = rendezvous(game, deals=1, r9=cards("4♦"), w=cards("Q♥"), s=stock(game, "9♥"))
    state = play(game, state, "r9>f10")
    assert pile(game, state, "r9") == cards("Q♥")
    assert pile(game, state, "w") == () and pile(game, state, "s") == cards("9♥")


@pytest.mark.parametrize("game", RENDEZVOUS, ids=lambda g: g.id)
def test_rendezvous_waiting_gaps_fill_in_reading_order(game: Game) -> None:
    """Gaps waiting on an empty waste are filled in reading order: top row first."""
    state = rendezvous(game, deals=1, r4=cards("4♥"), r9=cards("4♦"), s=stock(game, "9♥ J♣ 7♦"))
    state = play(game, state, "r9>f10", "r4>f11")  # the bottom-row gap opens first
    assert pile(game, state, "r9") == () and pile(game, state, "r4") == ()
    state = play(game, state, "deal")
    assert pile(game, state, "r4") == cards("9♥") and pile(game, state, "r9") == ()
    state = play(game, state, "deal", "deal")
    assert pile(game, state, "r9") == cards("J♣")
    assert pile(game, state, "w") == cards("7♦")


def test_bergholt_reversed_deal_offered_for_one_to_eight_cards() -> None:
    """deal-reversed is legal exactly when the stock holds 1 to 8 cards."""
    pack = ["5♣", "6♣", "7♣", "8♣", "9♣", "10♣", "J♣", "Q♣", "K♣"]
    for size in range(len(pack) + 1):
        state = position(BERGHOLT, s=stock(BERGHOLT, " ".join(pack[:size])))
        assert ("deal-reversed" in legal(BERGHOLT, state)) is (1 <= size <= 8), size


def test_bergholt_ace_dealt_last_in_a_reversed_deal_leaves_its_depot_without_a_card() -> None:
    """Reversed deal, ace last: it is discarded and its depot (here d6) gets nothing."""
    state = position(BERGHOLT, d6=cards("K♦"), s=stock(BERGHOLT, "5♣ 6♣ A♥"))
    state = play(BERGHOLT, state, "deal-reversed")
    assert pile(BERGHOLT, state, "x") == (card("A♥"),)
    assert pile(BERGHOLT, state, "d8") == cards("5♣")
    assert pile(BERGHOLT, state, "d7") == cards("6♣")
    assert pile(BERGHOLT, state, "d6") == cards("K♦")
    assert pile(BERGHOLT, state, "s") == ()
