"""Royal Parade, Bergholt's Royal Parade and Virginia Reel, rule by rule."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

import pytest

from protocol.cards import Card, card_rank
from protocol.layout import Fan, Role
from protocol.moves import Move
from server.engine import IllegalMoveError, State, find_variant
from server.engine.parade import RoyalParade, RoyalParadeBergholt, VirginiaReel

ROYAL = RoyalParade()
BERGHOLT = RoyalParadeBergholt()
REEL = VirginiaReel()
GAMES = (ROYAL, BERGHOLT, REEL)


def card(text: str) -> int:
    """A card id from its text; a trailing ``'`` names the second deck's copy."""
    if text.endswith("'"):
        return Card.parse(text[:-1], deck=1).id
    return Card.parse(text).id


def cards(*texts: str) -> tuple[int, ...]:
    return tuple(card(text) for text in texts)


def position(
    game: RoyalParade,
    dealt: tuple[str, ...] = (),
    fill: bool = False,
    spots: Mapping[str, list[str]] | None = None,
    **piles: list[str],
) -> State:
    """A hand-built position; ``dealt`` is the stock with the first card dealt first.

    Piles are named by keyword or, for names chosen at run time, in ``spots``.
    With ``fill``, every Parade spot not named holds a K♦, which fits nowhere
    here, so that no space is open.
    """
    built = game.empty_piles()
    if fill:
        for spot in game.parade:
            built[spot] = cards("KD")
    for pile_id, texts in {**(spots or {}), **piles}.items():
        built[game.index[pile_id]] = cards(*texts)
    built[game.index["s"]] = game.stock_from(cards(*dealt))
    return State(game.id, tuple(built))


def pile(game: RoyalParade, state: State, pile_id: str) -> tuple[int, ...]:
    return state.piles[game.index[pile_id]]


def legal(game: RoyalParade, state: State) -> list[str]:
    return game.legal_moves(state).texts()


def refusal(game: RoyalParade, state: State, text: str) -> str:
    with pytest.raises(IllegalMoveError) as caught:
        game.apply(state, Move.parse(text))
    return caught.value.reason


def play(game: RoyalParade, state: State, *texts: str) -> State:
    for text in texts:
        state = game.apply(state, Move.parse(text))
    return state


# ----------------------------------------------------------------------
# Registry, pack, layout.


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_variant_is_registered(game: RoyalParade) -> None:
    """Each variant is found in the registry under its id, as the same kind of game."""
    assert type(find_variant(game.id)) is type(game)


def test_royal_parade_takes_the_eight_aces_out() -> None:
    """Royal Parade shuffles 96 cards: both decks less exactly the eight aces."""
    assert ROYAL.taken_out == (0, 13, 26, 39, 52, 65, 78, 91)
    assert len(ROYAL.pack()) == 96
    assert not any(card_rank(c) == 1 for c in ROYAL.pack())


@pytest.mark.parametrize("game", (BERGHOLT, REEL), ids=lambda game: game.id)
def test_bergholt_and_reel_keep_all_104_cards(game: RoyalParade) -> None:
    """Bergholt's game and Virginia Reel keep the aces in the pack."""
    assert game.pack() == list(range(104))


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_layout_piles_roles_and_rows(game: RoyalParade) -> None:
    """Stock, 24 Parade spots in three rows of eight, 8 depots below, discard only with aces."""
    ids = [f"p{n}" for n in range(1, 25)] + [f"d{n}" for n in range(1, 9)]
    expected = ["s", *ids] + (["x"] if game is not ROYAL else [])
    assert list(game.pile_ids) == expected
    for n in range(24):
        spec = game.layout.pile(f"p{n + 1}")
        assert (spec.role, spec.row, spec.col, spec.fan) == (Role.PARADE, n // 8, n % 8, Fan.NONE)
    for n in range(8):
        spec = game.layout.pile(f"d{n + 1}")
        assert (spec.role, spec.row, spec.col, spec.fan) == (Role.DEPOT, 3, n, Fan.DOWN)
    if game is not ROYAL:
        assert game.layout.pile("x").role is Role.DISCARD


@pytest.mark.parametrize("game", (ROYAL, BERGHOLT), ids=lambda game: game.id)
def test_deal_lays_24_parade_cards_and_leaves_depots_empty(game: RoyalParade) -> None:
    """The opening deal: one card per Parade spot in pack order, depots empty, rest the stock."""
    state = game.deal(7)
    assert all(len(pile(game, state, f"p{n}")) == 1 for n in range(1, 25))
    assert all(not pile(game, state, f"d{n}") for n in range(1, 9))
    assert len(pile(game, state, "s")) == len(game.pack()) - 24
    assert game.deal(7) == state


# ----------------------------------------------------------------------
# Foundations in place, building by threes.


def test_base_cards_in_their_rows_are_foundations() -> None:
    """A 2 in the top row, a 3 in the middle, a 4 in the bottom are foundations; others loose."""
    state = position(
        ROYAL, p1=["2C"], p9=["3D"], p17=["4H"], p2=["3C"], p10=["2S"], p18=["2H"], p3=["4C"]
    )
    assert ROYAL.home(state) == 3
    assert ROYAL.loose_spots(state.piles) == [ROYAL.index[p] for p in ("p2", "p3", "p10", "p18")]


@pytest.mark.parametrize(
    ("spot", "ranks"),
    [("p4", ("2", "5", "8", "J")), ("p12", ("3", "6", "9", "Q")), ("p20", ("4", "7", "10", "K"))],
)
def test_foundations_build_by_threes_to_their_row_end(spot: str, ranks: tuple[str, ...]) -> None:
    """Each row's foundations build up by suit in threes to J, Q or K and then take nothing."""
    base, *rest = (rank + "H" for rank in ranks)
    first, second = [p for p in ("p1", "p9", "p17") if p != spot][:2]
    state = position(ROYAL, spots={spot: [base], first: [rest[0]], second: [rest[1]]}, d1=[rest[2]])
    assert legal(ROYAL, state) == [f"{first}>{spot}"]
    state = play(ROYAL, state, f"{first}>{spot}", f"{second}>{spot}", f"d1>{spot}")
    assert pile(ROYAL, state, spot) == cards(base, *rest)
    assert ROYAL.home(state) == 4
    full = position(ROYAL, spots={spot: [base, *rest]}, d1=[rest[2] + "'"])
    assert legal(ROYAL, full) == []
    assert refusal(ROYAL, full, f"d1>{spot}") == f"the foundation on {spot} is complete"


def test_building_needs_same_suit_and_rank_three_higher() -> None:
    """A 2♣ foundation takes the 5♣ only: not the 5♦, the 6♣ or the 8♣."""
    state = position(ROYAL, p1=["2C"], p9=["5D"], p10=["6C"], p11=["8C"], p12=["5C"])
    assert legal(ROYAL, state) == ["p12>p1"]
    assert refusal(ROYAL, state, "p9>p1") == "the foundation on p1 takes only the 5♣ next"


def test_either_copy_of_a_card_builds() -> None:
    """The two decks' copies of a card are equal for building."""
    state = position(ROYAL, p1=["2C'"], p9=["5C"], p10=["5C'"])
    assert legal(ROYAL, state) == ["p9>p1", "p10>p1"]


# ----------------------------------------------------------------------
# Loose cards and spaces.


def test_loose_card_builds_on_a_fitting_foundation_of_any_row() -> None:
    """Loose cards go to any row's foundation: a bottom-row 5♣ to the top row, and so on."""
    state = position(ROYAL, p1=["2C"], p9=["3C"], p17=["4C"], p24=["5C"], p2=["6C"], p10=["7C"])
    assert legal(ROYAL, state) == ["p2>p9", "p10>p17", "p24>p1"]


def test_loose_card_may_choose_between_foundations() -> None:
    """When two foundations take a card, each is a separate legal move."""
    state = position(ROYAL, p1=["2C"], p8=["2C'"], p9=["5C"])
    assert legal(ROYAL, state) == ["p9>p1", "p9>p8"]


def test_taking_a_parade_card_leaves_a_space() -> None:
    """A loose card built away leaves its Parade spot empty."""
    state = play(ROYAL, position(ROYAL, p1=["2C"], p9=["5C"]), "p9>p1")
    assert pile(ROYAL, state, "p9") == ()
    assert pile(ROYAL, state, "p1") == cards("2C", "5C")


@pytest.mark.parametrize(
    ("text", "spot", "row"), [("3C", "p1", "middle"), ("2D", "p17", "top"), ("4S", "p9", "bottom")]
)
def test_misplaced_base_card_is_loose_and_moves_to_a_space_of_its_own_row(
    text: str, spot: str, row: str
) -> None:
    """A 2/3/4 in a wrong row is loose and available, and goes only into a space of its own row."""
    spaces = {"top": "p2", "middle": "p10", "bottom": "p18"}
    others = {key: value for key, value in spaces.items() if key != row}
    state = position(ROYAL, fill=True, spots={spot: [text]}, p2=[], p10=[], p18=[])
    assert ROYAL.home(state) == 0
    assert legal(ROYAL, state) == [f"{spot}>{spaces[row]}"]
    for other_row, other in others.items():
        base = {"top": "2", "middle": "3", "bottom": "4"}[other_row]
        assert refusal(ROYAL, state, f"{spot}>{other}") == (
            f"a space in the {other_row} row takes only a {base}"
        )
    after = play(ROYAL, state, f"{spot}>{spaces[row]}")
    assert ROYAL.home(after) == 1
    assert pile(ROYAL, after, spot) == ()


def test_spaces_take_only_their_rows_base_card() -> None:
    """A space takes no card but its row's base: not a 5, not a loose non-base card."""
    state = position(ROYAL, p1=["9C"], d1=["5C"], d2=["4H"], d3=["QS"])
    assert legal(ROYAL, state) == [f"d2>p{n}" for n in range(17, 25)]
    assert refusal(ROYAL, state, "d1>p2") == "a space in the top row takes only a 2"
    assert refusal(ROYAL, state, "p1>p10") == "a space in the middle row takes only a 3"
    assert refusal(ROYAL, state, "d2>p9") == "a space in the middle row takes only a 3"


def test_nothing_is_built_on_a_loose_card() -> None:
    """A loose card is no foundation: nothing goes on it, even a card three higher."""
    state = position(ROYAL, p1=["5C"], p2=["8C"], d1=["8C'"])
    assert legal(ROYAL, state) == []
    assert refusal(ROYAL, state, "p2>p1") == (
        "p1 holds a loose card; cards are built only on foundations"
    )


def test_foundation_cards_stay_put() -> None:
    """Cards on a foundation, its base included, never move again."""
    state = position(ROYAL, p1=["2C", "5C"], p2=["2C'"], p3=["2D"], p10=[])
    assert legal(ROYAL, state) == []
    assert refusal(ROYAL, state, "p1>p2") == "5♣ is on a foundation and stays there"
    assert refusal(ROYAL, state, "p3>p4") == "2♦ is on a foundation and stays there"


# ----------------------------------------------------------------------
# Depots and dealing.


def test_only_a_depots_top_card_is_available() -> None:
    """A depot card under another is not available until the top card leaves."""
    state = position(ROYAL, p1=["2C"], p9=["3D"], d1=["5C", "6D"])
    assert legal(ROYAL, state) == ["d1>p9"]
    assert refusal(ROYAL, state, "d1>p1") == "the foundation on p1 takes only the 5♣ next"
    assert refusal(ROYAL, state, "d1:0>p1") == (
        "only the top card of d1 is available: name no position"
    )
    assert legal(ROYAL, play(ROYAL, state, "d1>p9")) == ["d1>p1"]


def test_depot_cards_go_only_to_foundations_or_spaces() -> None:
    """Depot cards never go onto another depot or a loose card; Parade cards never to a depot."""
    state = position(ROYAL, p1=["9C"], p9=["3C"], d1=["6C"], d2=["KH"], d3=["4H"])
    assert legal(ROYAL, state) == ["d1>p9", *(f"d3>p{n}" for n in range(17, 25))]
    assert refusal(ROYAL, state, "d1>d2") == "depot cards never go onto another depot"
    assert refusal(ROYAL, state, "d1>d4") == "depot cards never go onto another depot"
    assert refusal(ROYAL, state, "d1>p1") == (
        "p1 holds a loose card; cards are built only on foundations"
    )
    assert refusal(ROYAL, state, "p1>d4") == "depots take cards only from the stock"
    assert refusal(ROYAL, state, "s>d4") == "the stock is only dealt to the depots"


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_deal_puts_one_card_on_each_depot_left_to_right(game: RoyalParade) -> None:
    """A deal puts the next stock card on d1, the one after on d2, … on d8."""
    dealt = ("5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC", "5D")
    state = play(game, position(game, dealt, d3=["KH"]), "deal")
    assert [pile(game, state, f"d{n}")[-1:] for n in range(1, 9)] == [
        (card(text),) for text in dealt[:8]
    ]
    assert pile(game, state, "d3") == cards("KH", "7C")
    assert pile(game, state, "s") == cards("5D", "KC")


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_short_stock_deals_until_empty(game: RoyalParade) -> None:
    """A short stock deals left to right until it runs out; then no deal is legal."""
    state = play(game, position(game, ("5C", "6C", "7C")), "deal")
    assert [len(pile(game, state, f"d{n}")) for n in range(1, 9)] == [1, 1, 1, 0, 0, 0, 0, 0]
    assert pile(game, state, "s") == ()
    assert "deal" not in legal(game, state)
    assert refusal(game, state, "deal") == "the stock is empty"


def test_deal_is_allowed_while_other_moves_exist() -> None:
    """Dealing is legal whenever the stock is not empty, even with moves to make."""
    state = position(ROYAL, ("KC",), p1=["2C"], p9=["5C"])
    assert legal(ROYAL, state) == ["p9>p1", "deal"]


def test_royal_parade_stock_makes_nine_full_deals() -> None:
    """Royal Parade's 72-card stock is nine deals of eight; then the stock is empty."""
    state = ROYAL.deal(3)
    for _ in range(9):
        state = ROYAL.apply(state, Move.deal())
    assert all(len(pile(ROYAL, state, f"d{n}")) == 9 for n in range(1, 9))
    assert pile(ROYAL, state, "s") == ()


# ----------------------------------------------------------------------
# Actions a variant does not have.


def test_royal_parade_has_no_discard_reversed_deal_or_swap() -> None:
    """Royal Parade refuses discards, reversed deals and swaps, saying why."""
    state = position(ROYAL, ("5C", "6C"), fill=True, p1=["3C"], p9=["2D"])
    assert legal(ROYAL, state) == ["deal"]
    assert (
        refusal(ROYAL, state, "p1>x") == "Royal Parade is played without aces: nothing is discarded"
    )
    assert refusal(ROYAL, state, "deal-reversed") == "Royal Parade has no reversed deal"
    assert refusal(ROYAL, state, "swap p1 p9") == "Royal Parade has no swap"


def test_bergholt_has_no_swap_and_reel_no_reversed_deal() -> None:
    """Swaps are Virginia Reel's alone; the reversed deal is Bergholt's alone."""
    state = position(BERGHOLT, ("5C",), p1=["3C"], p9=["2D"])
    assert "swap p1 p9" not in legal(BERGHOLT, state)
    assert refusal(BERGHOLT, state, "swap p1 p9") == "Bergholt's Royal Parade has no swap"
    state = position(REEL, ("5C",), p1=["3C"], p9=["2D"])
    assert "deal-reversed" not in legal(REEL, state)
    assert refusal(REEL, state, "deal-reversed") == "Virginia Reel has no reversed deal"


# ----------------------------------------------------------------------
# Aces: discarding (Bergholt and Virginia Reel).


def test_discard_move_text() -> None:
    """A discard is a card move to the discard pile x: ``p5>x``, also read from ``discard p5``."""
    assert Move.discard("p5").text() == "p5>x"
    assert Move.parse("discard p5") == Move.discard("p5") == Move.parse("p5>x")


@pytest.mark.parametrize("game", (BERGHOLT, REEL), ids=lambda game: game.id)
def test_parade_ace_is_discarded_leaving_a_space(game: RoyalParade) -> None:
    """An available Parade ace may be discarded; its spot becomes a space for a base card."""
    state = position(game, fill=True, p9=["AH"], d1=["3S"])
    assert legal(game, state) == ["p9>x"]
    state = play(game, state, "p9>x")
    assert pile(game, state, "x") == cards("AH")
    assert pile(game, state, "p9") == ()
    assert legal(game, state) == ["d1>p9"]


@pytest.mark.parametrize("game", (BERGHOLT, REEL), ids=lambda game: game.id)
def test_only_aces_are_discarded(game: RoyalParade) -> None:
    """Discarding is for aces alone; discarded aces are out of play."""
    state = position(game, p1=["KH"], p2=["2C"], x=["AS"])
    assert refusal(game, state, "p1>x") == "only aces are discarded"
    assert refusal(game, state, "p2>x") == "2♣ is on a foundation and stays there"
    assert refusal(game, state, "x>p3") == "discarded aces are out of play"


def test_bergholt_ace_dealt_to_a_depot_is_replaced() -> None:
    """Bergholt: an ace dealt to a depot is discarded at once; that depot gets the next card."""
    dealt = ("5C", "AH", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC")
    state = play(BERGHOLT, position(BERGHOLT, dealt, d2=["KD"]), "deal")
    assert pile(BERGHOLT, state, "x") == cards("AH")
    assert pile(BERGHOLT, state, "d2") == cards("KD", "6C")
    assert [pile(BERGHOLT, state, f"d{n}")[-1] for n in range(1, 9)] == list(
        cards("5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC")
    )
    assert pile(BERGHOLT, state, "s") == cards("KC")


def test_bergholt_consecutive_dealt_aces_are_all_replaced() -> None:
    """Bergholt: aces in a row are each discarded until a non-ace reaches the depot."""
    dealt = ("AH", "AS'", "5C", "AD", "6C", "7C", "8C", "9C", "10C", "JC", "QC")
    state = play(BERGHOLT, position(BERGHOLT, dealt), "deal")
    assert pile(BERGHOLT, state, "x") == cards("AH", "AS'", "AD")
    assert [pile(BERGHOLT, state, f"d{n}") for n in range(1, 9)] == [
        (card(text),) for text in ("5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC")
    ]
    assert pile(BERGHOLT, state, "s") == ()


def test_bergholt_ace_as_last_stock_card_leaves_its_depot_unserved() -> None:
    """Bergholt ruling: an ace dealt as the last stock card is discarded; its depot gets none."""
    state = play(BERGHOLT, position(BERGHOLT, ("5C", "6C", "AH"), d3=["KD"]), "deal")
    assert pile(BERGHOLT, state, "x") == cards("AH")
    assert pile(BERGHOLT, state, "d3") == cards("KD")
    assert [len(pile(BERGHOLT, state, f"d{n}")) for n in range(1, 9)] == [1, 1, 1, 0, 0, 0, 0, 0]
    assert BERGHOLT.is_over(state)


def test_reel_ace_dealt_to_a_depot_is_discarded_and_not_replaced() -> None:
    """Virginia Reel: an ace dealt to a depot is discarded; that depot gets nothing this deal."""
    dealt = ("5C", "AH", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC")
    state = play(REEL, position(REEL, dealt, p1=["2D"], d2=["5D"]), "deal")
    assert pile(REEL, state, "x") == cards("AH")
    assert pile(REEL, state, "d2") == cards("5D")
    assert [pile(REEL, state, f"d{n}")[-1] for n in range(1, 9)] == list(
        cards("5C", "5D", "6C", "7C", "8C", "9C", "10C", "JC")
    )
    assert pile(REEL, state, "s") == cards("KC", "QC")
    assert "d2>p1" in legal(REEL, state)


# ----------------------------------------------------------------------
# Bergholt's reversed final deal.


def test_bergholt_reversed_deal_only_with_at_most_eight_stock_cards() -> None:
    """deal-reversed is legal, beside deal, only when 1 to 8 cards are left in the stock."""
    eight = ("5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC")
    state = position(BERGHOLT, eight)
    assert legal(BERGHOLT, state) == ["deal", "deal-reversed"]
    assert legal(BERGHOLT, position(BERGHOLT, ("5C",))) == ["deal", "deal-reversed"]
    nine = position(BERGHOLT, (*eight, "KC"))
    assert legal(BERGHOLT, nine) == ["deal"]
    assert refusal(BERGHOLT, nine, "deal-reversed") == (
        "only the final deal (at most 8 stock cards left) may be made in reverse; 9 are left"
    )
    assert refusal(BERGHOLT, position(BERGHOLT), "deal-reversed") == "the stock is empty"


def test_bergholt_reversed_deal_goes_right_to_left() -> None:
    """A reversed deal gives the first stock card to d8 and the eighth to d1."""
    eight = ("5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC")
    state = play(BERGHOLT, position(BERGHOLT, eight), "deal-reversed")
    assert [pile(BERGHOLT, state, f"d{n}") for n in range(8, 0, -1)] == [
        (card(text),) for text in eight
    ]
    short = play(BERGHOLT, position(BERGHOLT, ("5C", "6C")), "deal-reversed")
    assert [len(pile(BERGHOLT, short, f"d{n}")) for n in range(1, 9)] == [0] * 6 + [1, 1]
    assert pile(BERGHOLT, short, "d8") == cards("5C")


def test_bergholt_reversed_deal_replaces_dealt_aces_too() -> None:
    """In a reversed deal an ace is discarded and the same depot takes the next card."""
    state = play(BERGHOLT, position(BERGHOLT, ("5C", "AH", "6C", "7C")), "deal-reversed")
    assert pile(BERGHOLT, state, "x") == cards("AH")
    assert pile(BERGHOLT, state, "d8") == cards("5C")
    assert pile(BERGHOLT, state, "d7") == cards("6C")
    assert pile(BERGHOLT, state, "d6") == cards("7C")
    assert pile(BERGHOLT, state, "d5") == ()


def test_bergholt_full_game_reaches_a_reversible_final_deal() -> None:
    """From a real deal, dealing on reaches a stock of at most 8 where deal-reversed is offered."""
    state = BERGHOLT.deal(11)
    while len(pile(BERGHOLT, state, "s")) > 8:
        assert "deal-reversed" not in legal(BERGHOLT, state)
        state = BERGHOLT.apply(state, Move.deal())
    if pile(BERGHOLT, state, "s"):
        assert legal(BERGHOLT, state)[-2:] == ["deal", "deal-reversed"]


# ----------------------------------------------------------------------
# Virginia Reel: head start and swap.


def test_reel_head_start_from_a_known_pack() -> None:
    """The first 2, 3 and 4 of the pack open the rows; the other 21 spots follow in pack order."""
    prefix = cards("5C", "4H", "7D", "3S", "AH", "2C", "4D", "2D", "3C")
    pack = list(prefix) + [c for c in range(104) if c not in prefix]
    state = REEL.lay_out(pack)
    assert pile(REEL, state, "p1") == cards("2C")
    assert pile(REEL, state, "p9") == cards("3S")
    assert pile(REEL, state, "p17") == cards("4H")
    rest = [c for c in pack if c not in cards("2C", "3S", "4H")]
    others = [f"p{n}" for n in range(1, 25) if n not in (1, 9, 17)]
    assert [pile(REEL, state, p) for p in others] == [(c,) for c in rest[:21]]
    assert pile(REEL, state, "s") == REEL.stock_from(rest[21:])
    assert all(not pile(REEL, state, f"d{n}") for n in range(1, 9))
    assert pile(REEL, state, "x") == ()


@pytest.mark.parametrize("seed", range(10))
def test_reel_deals_always_have_the_head_start(seed: int) -> None:
    """Every Virginia Reel deal opens with a 2, 3 and 4 founding the left end of their rows."""
    state = REEL.deal(seed)
    assert [card_rank(pile(REEL, state, p)[0]) for p in ("p1", "p9", "p17")] == [2, 3, 4]
    assert REEL.home(state) >= 3
    assert len(pile(REEL, state, "s")) == 80


def test_reel_swap_of_base_cards_in_each_others_rows() -> None:
    """A 3 in the top row and a 2 in the middle row swap, and both become foundations."""
    state = position(REEL, fill=True, p3=["3C"], p9=["2D"])
    assert legal(REEL, state) == ["swap p3 p9"]
    after = play(REEL, state, "swap p3 p9")
    assert pile(REEL, after, "p3") == cards("2D")
    assert pile(REEL, after, "p9") == cards("3C")
    assert REEL.home(after) == 2


def test_reel_swap_is_listed_once_in_pile_order() -> None:
    """Each swappable pair is one move named in layout order; the reversed text is refused."""
    state = position(REEL, ("KC",), fill=True, p3=["3C"], p5=["3D"], p9=["2D"], p10=["2H"])
    assert legal(REEL, state) == ["swap p3 p9", "swap p3 p10", "swap p5 p9", "swap p5 p10", "deal"]
    assert refusal(REEL, state, "swap p9 p3") == "name the pair in layout order: swap p3 p9"


def test_reel_swap_needs_each_card_to_belong_in_the_others_row() -> None:
    """No swap unless both cards end in their right rows: a 3 on top and a 4 in the middle won't."""
    state = position(REEL, fill=True, p3=["3C"], p10=["4D"], p18=["4H"], p19=["7S"])
    assert legal(REEL, state) == []
    assert refusal(REEL, state, "swap p3 p10") == "3♣ and 4♦ do not belong in each other's rows"
    assert refusal(REEL, state, "swap p3 p18") == "4♥ is on a foundation and stays there"
    assert refusal(REEL, state, "swap p3 p19") == "7♠ is not a base card (2, 3 or 4)"
    assert refusal(REEL, state, "swap p3 d1") == "only Parade cards are swapped"
    assert refusal(REEL, state, "swap p3 p3") == "a swap takes two different Parade spots"
    assert refusal(REEL, position(REEL, p3=["3C"]), "swap p3 p4") == "p4 is empty"


def test_reel_rotation_of_three_base_cards_each_in_another_row() -> None:
    """A 3 on top, a 4 in the middle and a 2 at the bottom rotate; all three become foundations."""
    state = position(REEL, fill=True, p3=["3C"], p10=["4D"], p17=["2H"])
    assert legal(REEL, state) == ["swap p3 p10 p17"]
    after = play(REEL, state, "swap p3 p10 p17")
    assert pile(REEL, after, "p3") == cards("2H")
    assert pile(REEL, after, "p10") == cards("3C")
    assert pile(REEL, after, "p17") == cards("4D")
    assert REEL.home(after) == 3


def test_reel_rotation_the_other_way_round() -> None:
    """A 4 on top, a 2 in the middle and a 3 at the bottom rotate the other way."""
    state = position(REEL, fill=True, p8=["4C"], p9=["2D"], p24=["3H"])
    assert legal(REEL, state) == ["swap p8 p9 p24"]
    after = play(REEL, state, "swap p8 p9 p24")
    assert [pile(REEL, after, p) for p in ("p8", "p9", "p24")] == [
        cards("2D"),
        cards("3H"),
        cards("4C"),
    ]


def test_reel_pairs_are_listed_before_rotations() -> None:
    """Pairs and rotations of the same cards are all moves; pairs first, each in layout order."""
    state = position(REEL, fill=True, p3=["3C"], p9=["2D"], p10=["4D"], p17=["2H"])
    assert legal(REEL, state) == ["swap p3 p9", "swap p3 p10 p17"]


def test_reel_rotation_refusals() -> None:
    """A rotation needs three different base cards, one in each row, each bound for another."""
    state = position(REEL, fill=True, p3=["3C"], p4=["4S"], p10=["4D"], p17=["2H"], p20=["3S"])
    assert refusal(REEL, state, "swap p10 p3 p17") == (
        "name the three cards in layout order: swap p3 p10 p17"
    )
    assert refusal(REEL, state, "swap p3 p4 p17") == (
        "3♣, 4♠ and 2♥ do not each belong in another's row"
    )
    assert refusal(REEL, state, "swap p3 p10 p20") == (
        "3♣, 4♦ and 3♠ do not each belong in another's row"
    )
    assert refusal(REEL, state, "swap p3 p10 p10") == "a swap takes three different Parade spots"
    assert refusal(BERGHOLT, position(BERGHOLT), "swap p3 p10 p17") == (
        "Bergholt's Royal Parade has no swap"
    )


def test_reel_swap_and_move_order() -> None:
    """Card moves come first (Parade, then depots), then swaps, then the deal."""
    state = position(
        REEL,
        ("KC",),
        fill=True,
        p1=["AH"],
        p2=["3C"],
        p9=["2D"],
        p10=["4S"],
        p11=["3S"],
        p12=["6S"],
        p17=[],
        d1=["4D"],
    )
    assert legal(REEL, state) == ["p1>x", "p10>p17", "p12>p11", "d1>p17", "swap p2 p9", "deal"]


# ----------------------------------------------------------------------
# Won and over.


def _full_parade() -> dict[str, list[str]]:
    rows = (("2", "5", "8", "J"), ("3", "6", "9", "Q"), ("4", "7", "10", "K"))
    spots: dict[str, list[str]] = {}
    for row, ranks in enumerate(rows):
        for n in range(8):
            suit, deck = "CDHS"[n % 4], "'" * (n // 4)
            spots[f"p{row * 8 + n + 1}"] = [rank + suit + deck for rank in ranks]
    return spots


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_won_when_all_96_cards_are_home(game: RoyalParade) -> None:
    """Twenty-four full foundations are 96 cards home: the game is won and over."""
    state = position(game, spots=_full_parade())
    assert game.target() == 96
    assert game.home(state) == 96
    assert game.is_won(state)
    assert game.is_over(state)


def test_won_comes_with_the_last_card() -> None:
    """With one K still on a depot the game is neither won nor over; playing it wins."""
    spots = _full_parade()
    spots["p24"] = spots["p24"][:-1]
    state = position(ROYAL, spots=spots, d5=["KS'"])
    assert ROYAL.home(state) == 95
    assert not ROYAL.is_won(state)
    assert not ROYAL.is_over(state)
    assert legal(ROYAL, state) == ["d5>p24"]
    assert ROYAL.is_won(play(ROYAL, state, "d5>p24"))


def test_over_when_nothing_fits_and_the_stock_is_empty() -> None:
    """A position with an empty stock and no fitting card is over, and not won."""
    state = position(ROYAL, p1=["2C"], p2=["KD"], d1=["9H", "6C"])
    assert ROYAL.is_over(state)
    assert not ROYAL.is_won(state)
    assert not ROYAL.is_over(position(ROYAL, ("QS",), p1=["2C"], p2=["KD"]))


def test_progress_reports_home_and_target() -> None:
    """Opponents see the home count against 96, never the cards."""
    progress = ROYAL.progress(position(ROYAL, p1=["2C", "5C"], p2=["KD"]))
    assert progress.to_data() == {"home": 2, "target": 96, "moves": 0, "won": False, "over": True}


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_view_hides_only_the_stock(game: RoyalParade) -> None:
    """The player's view shows every pile but the stock, which appears only as a count."""
    state = game.deal(5)
    view = game.view(state)
    assert "s" not in view["piles"]
    assert view["hidden"] == {"s": len(pile(game, state, "s"))}
    assert set(view["piles"]) == set(game.pile_ids) - {"s"}


# ----------------------------------------------------------------------
# Random playouts: they end, and no card is lost or made.


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.id)
def test_random_playouts_end_and_conserve_cards(game: RoyalParade) -> None:
    """Random legal play always ends, and the cards (discards included) stay the pack."""
    chooser = random.Random(f"parade/{game.id}")
    full = Counter(game.pack())
    for seed in range(25):
        state = game.deal(seed)
        for _ in range(400):
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.apply(state, chooser.choice(list(moves)))
            assert Counter(c for p in state.piles for c in p) == full
        else:
            pytest.fail(f"{game.id} seed {seed} did not end")
        assert game.is_over(state)
        assert pile(game, state, "s") == ()
        discarded = pile(game, state, "x") if "x" in game.index else ()
        assert all(card_rank(c) == 1 for c in discarded)
        assert game.home(state) <= 96
