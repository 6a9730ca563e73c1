"""Grand Duchess and Parisienne, rule by rule (RULES.md and docs/rules/duchess.md)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

import pytest

from protocol.cards import Card, kind_of
from protocol.layout import Fan, Role
from protocol.moves import Move
from server.engine import IllegalMoveError, State, find_variant
from server.engine.duchess import GrandDuchess, Parisienne
from server.engine.game import DEAL, REDEAL, Game

GD = find_variant("grand-duchess")
PA = find_variant("parisienne")
PILE_IDS = ("s", "t1", "t2", "t3", "t4", "r", *(f"f{n}" for n in range(1, 9)))


def c(text: str, deck: int = 0) -> int:
    """The id of a card written as text, e.g. ``c("10H")``."""
    return Card.parse(text, deck).id


def stock(*dealt: int) -> tuple[int, ...]:
    """A stock pile that deals ``dealt`` in the order given (its top is last)."""
    return tuple(reversed(dealt))


def up(suit: int, to: int, deck: int = 0) -> tuple[int, ...]:
    """An ace foundation of ``suit`` built from A up to rank ``to``."""
    return tuple(52 * deck + kind_of(suit, rank) for rank in range(1, to + 1))


def down(suit: int, to: int, deck: int = 0) -> tuple[int, ...]:
    """A king foundation of ``suit`` built from K down to rank ``to``."""
    return tuple(52 * deck + kind_of(suit, rank) for rank in range(13, to - 1, -1))


def position(game: Game, passes: int = 0, **piles: Iterable[int]) -> State:
    """A hand-built position; piles not named are empty."""
    rows: list[tuple[int, ...]] = [() for _ in game.pile_ids]
    for pile_id, cards in piles.items():
        rows[game.index[pile_id]] = tuple(cards)
    return State(game.id, tuple(rows), passes)


def pile(game: Game, state: State, pile_id: str) -> tuple[int, ...]:
    return state.piles[game.index[pile_id]]


def refusal(game: Game, state: State, move: Move) -> str:
    """The reason ``apply`` gives for refusing ``move`` (it must refuse it)."""
    assert move not in game.legal_moves(state)
    with pytest.raises(IllegalMoveError) as info:
        game.apply(state, move)
    return info.value.reason


def card_moves(game: Game, state: State) -> list[str]:
    return [text for text in game.legal_moves(state).texts() if ">" in text]


# ----------------------------------------------------------------------
# Registry and layout.


def test_both_variants_are_registered() -> None:
    """find_variant gives a Grand Duchess and a Parisienne game."""
    assert isinstance(GD, GrandDuchess) and not isinstance(GD, Parisienne)
    assert isinstance(PA, Parisienne)
    assert (GD.decks, GD.redeals, PA.redeals) == (2, 3, 3)


def test_layout_piles_roles_and_fans() -> None:
    """Stock, four fanned tableau piles, a reserve fanned right, eight foundations."""
    for game in (GD, PA):
        assert game.pile_ids == PILE_IDS
        specs = {spec.id: spec for spec in game.layout.piles}
        assert specs["s"].role is Role.STOCK
        assert specs["r"].role is Role.RESERVE and specs["r"].fan is Fan.RIGHT
        for n in range(1, 5):
            assert specs[f"t{n}"].role is Role.TABLEAU and specs[f"t{n}"].fan is Fan.DOWN
        labels = [specs[f"f{n}"].label for n in range(1, 9)]
        assert labels == ["A♣ +1", "A♦ +1", "A♥ +1", "A♠ +1", "K♣ -1", "K♦ -1", "K♥ -1", "K♠ -1"]
        cells = {(spec.row, spec.col) for spec in game.layout.piles}
        assert len(cells) == len(PILE_IDS)


def test_target_is_every_card() -> None:
    """A game is won only with all 104 cards on the foundations."""
    assert GD.target() == PA.target() == 104


# ----------------------------------------------------------------------
# Dealing.


def test_game_starts_with_one_deal() -> None:
    """The opening deal: one card on each tableau pile left to right, then two on the reserve."""
    state = GD.lay_out(list(range(104)))
    assert [pile(GD, state, f"t{n}") for n in range(1, 5)] == [(0,), (1,), (2,), (3,)]
    assert pile(GD, state, "r") == (4, 5)
    assert pile(GD, state, "s") == stock(*range(6, 104))
    assert (state.passes, state.moves) == (0, 0)


def test_seeded_deal_is_fixed_and_complete() -> None:
    """The same seed gives the same deal, and every one of the 104 cards is in it."""
    for game in (GD, PA):
        state = game.deal(12345)
        assert state == game.deal(12345) and state != game.deal(12346)
        assert sorted(card for p in state.piles for card in p) == list(range(104))
        assert len(pile(game, state, "r")) == 2
        assert all(len(pile(game, state, f"t{n}")) == 1 for n in range(1, 5))


def test_deal_order() -> None:
    """A deal puts one card face up on t1..t4 in turn, then two on the reserve, in stock order."""
    state = position(GD, s=stock(*range(20, 30)), t1=[10], t3=[11], r=[12, 13])
    after = GD.apply(state, DEAL)
    assert [pile(GD, after, f"t{n}") for n in range(1, 5)] == [(10, 20), (21,), (11, 22), (23,)]
    assert pile(GD, after, "r") == (12, 13, 24, 25)
    assert pile(GD, after, "s") == stock(*range(26, 30))
    assert after.moves == 1 and after.passes == 0


@pytest.mark.parametrize(
    ("left", "tableau", "reserve"),
    [
        (5, [(20,), (21,), (22,), (23,)], (24,)),
        (3, [(20,), (21,), (22,), ()], ()),
        (1, [(20,), (), (), ()], ()),
    ],
)
def test_short_stock_deals_in_order_until_empty(
    left: int, tableau: list[tuple[int, ...]], reserve: tuple[int, ...]
) -> None:
    """A short stock deals t1, t2, t3, t4, reserve, reserve until it is empty."""
    state = position(GD, s=stock(*range(20, 20 + left)))
    after = GD.apply(state, DEAL)
    assert [pile(GD, after, f"t{n}") for n in range(1, 5)] == tableau
    assert pile(GD, after, "r") == reserve
    assert pile(GD, after, "s") == ()


def test_deal_is_allowed_alongside_foundation_moves() -> None:
    """Dealing is allowed while the stock lasts, even when cards could go home."""
    state = position(GD, s=stock(20, 21), t1=[c("AC")])
    assert GD.legal_moves(state).texts() == ["t1>f1", "deal"]


def test_deal_refused_when_stock_is_empty() -> None:
    """No deal once the stock is out."""
    state = position(GD, t1=[c("5H")], r=[c("6H")])
    assert refusal(GD, state, DEAL) == "the stock is empty"


@pytest.mark.parametrize("passes", [0, 1, 2])
def test_deals_make_a_reserve_before_the_third_redeal(passes: int) -> None:
    """Until the third redeal, each deal gives two cards to the reserve."""
    state = position(GD, passes, s=stock(*range(20, 26)))
    after = GD.apply(state, DEAL)
    assert pile(GD, after, "r") == (24, 25)
    assert pile(GD, after, "s") == ()


def test_after_third_redeal_a_deal_is_four_cards_and_no_reserve() -> None:
    """After the third redeal a deal is one card per tableau pile and nothing to the reserve."""
    state = position(GD, 3, s=stock(*range(20, 30)))
    after = GD.apply(state, DEAL)
    assert [pile(GD, after, f"t{n}") for n in range(1, 5)] == [(20,), (21,), (22,), (23,)]
    assert pile(GD, after, "r") == ()
    assert pile(GD, after, "s") == stock(*range(24, 30))
    short = GD.apply(position(GD, 3, s=stock(20, 21, 22, 23, 24, 25)), DEAL)
    assert pile(GD, short, "s") == stock(24, 25)


# ----------------------------------------------------------------------
# The tableau and the foundations.


def test_only_the_top_tableau_card_is_available() -> None:
    """A tableau card under another cannot move, even by position."""
    state = position(GD, s=stock(20), t1=[c("AC"), c("5H")])
    assert card_moves(GD, state) == []
    assert refusal(GD, state, Move.card("t1", "f1")) == "f1 needs the A♣, not the 5♥"
    reason = refusal(GD, state, Move.card("t1", "f1", 0))
    assert reason == "only the top card of t1 is available"


def test_ace_starts_only_its_suits_ace_foundation() -> None:
    """Any available ace starts the ace foundation of its suit, and no other."""
    state = position(GD, s=stock(20), t2=[c("AH", 1)])
    assert card_moves(GD, state) == ["t2>f3"]
    after = GD.apply(state, Move.parse("t2>f3"))
    assert pile(GD, after, "f3") == (c("AH", 1),) and pile(GD, after, "t2") == ()
    for dst in ("f1", "f2", "f4", "f7"):
        refusal(GD, state, Move.card("t2", dst))


def test_king_starts_only_its_suits_king_foundation() -> None:
    """Any available king starts the king foundation of its suit, and no other."""
    state = position(GD, s=stock(20), t4=[c("KS")])
    assert card_moves(GD, state) == ["t4>f8"]
    for dst in ("f4", "f5", "f7"):
        refusal(GD, state, Move.card("t4", dst))


def test_ace_foundations_build_up_and_king_foundations_down_by_suit() -> None:
    """A-foundations take the next rank up in suit, K-foundations the next rank down."""
    state = position(
        GD,
        s=stock(20),
        f1=up(0, 1),
        f5=down(0, 13),
        t1=[c("2C")],
        t2=[c("QC")],
        t3=[c("2D")],
        t4=[c("3C")],
    )
    assert card_moves(GD, state) == ["t1>f1", "t2>f5"]
    refusal(GD, state, Move.card("t4", "f1"))
    refusal(GD, state, Move.card("t1", "f5"))
    after = GD.apply(state, Move.parse("t1>f1"))
    assert card_moves(GD, after) == ["t2>f5", "t4>f1"]


def test_a_card_may_fit_both_foundations_of_its_suit() -> None:
    """When both foundations of a suit need the same card, either move is legal."""
    state = position(GD, s=stock(20), f2=up(1, 6), f6=down(1, 8, deck=1), t1=[c("7D")])
    assert card_moves(GD, state) == ["t1>f2", "t1>f6"]


def test_second_copy_of_an_ace_ends_a_king_foundation() -> None:
    """An ace whose ace foundation is taken goes on the king foundation after the deuce."""
    state = position(GD, s=stock(20), f1=up(0, 1), f5=down(0, 2, deck=1), t1=[c("AC", 1)])
    assert card_moves(GD, state) == ["t1>f5"]


def test_foundations_may_be_played_to_at_any_time() -> None:
    """Foundation moves are legal whether or not the stock is out, in any pass."""
    for passes in range(4):
        for stock_cards in ((), stock(20)):
            state = position(GD, passes, s=stock_cards, t1=[c("AC")])
            assert "t1>f1" in GD.legal_moves(state).texts()


def test_cards_go_only_to_the_foundations() -> None:
    """No card moves onto the tableau or the reserve, or off a foundation."""
    state = position(GD, f1=up(0, 3), t1=[c("6H")], t2=[c("7H")], r=[c("5H")])
    assert refusal(GD, state, Move.card("t1", "t2")) == "cards go only to the foundations"
    assert refusal(GD, state, Move.card("r", "t1", 0)) == "cards go only to the foundations"
    assert refusal(GD, state, Move.card("t1", "r")) == "cards go only to the foundations"
    reason = refusal(GD, state, Move.card("f1", "f5"))
    assert reason == "cards move only from the tableau and the reserve"
    assert refusal(GD, state, Move.card("t1", "f9")) == "there is no pile f9"


# ----------------------------------------------------------------------
# The reserve.


def test_reserve_is_face_down_while_the_stock_lasts() -> None:
    """While the stock is not empty the reserve is hidden and none of its cards moves."""
    state = position(GD, s=stock(20), r=[c("AC"), c("KD")])
    assert GD.hidden(state) == {GD.index["s"], GD.index["r"]}
    assert card_moves(GD, state) == []
    assert refusal(GD, state, Move.card("r", "f1", 0)) == "r is face down"
    assert refusal(GD, state, Move.card("r", "f6")) == "r is face down"


def test_reserve_is_spread_once_the_stock_is_out() -> None:
    """With the stock empty every reserve card is available, named by its position."""
    reserve = [c("AC"), c("5D"), c("KS"), c("AC", 1), c("KD")]
    state = position(GD, r=reserve)
    assert GD.hidden(state) == {GD.index["s"]}
    assert GD.legal_moves(state).texts() == ["r:0>f1", "r:2>f8", "r:3>f1", "r:4>f6", "redeal"]


def test_reserve_move_text_and_effect() -> None:
    """A reserve move reads r:4>f3 and takes exactly that card, keeping the others in order."""
    reserve = [c("2S"), c("3S"), c("4S"), c("5S"), c("AH"), c("6S")]
    state = position(GD, r=reserve)
    move = GD.card_move(GD.index["r"], GD.index["f3"], 4)
    assert move == Move.card("r", "f3", 4) == Move.parse("r:4>f3")
    assert move.text() == "r:4>f3"
    assert move is GD.card_move(GD.index["r"], GD.index["f3"], 4)
    after = GD.apply(state, Move.parse("r:4>f3"))
    assert pile(GD, after, "f3") == (c("AH"),)
    assert pile(GD, after, "r") == (c("2S"), c("3S"), c("4S"), c("5S"), c("6S"))


def test_reserve_move_needs_a_position_in_the_pile() -> None:
    """A spread reserve move without a position, or with one past the end, is refused."""
    state = position(GD, r=[c("AC"), c("9H")])
    assert refusal(GD, state, Move.card("r", "f1")).startswith("name the reserve card")
    assert refusal(GD, state, Move.card("r", "f1", 2)) == "r has no card at position 2"
    assert refusal(GD, state, Move.card("r", "f3", 1)) == "f3 needs the A♥, not the 9♥"


def test_tableau_moves_carry_no_position() -> None:
    """Tableau moves are listed without an index; reserve moves always with one."""
    state = position(GD, t1=[c("AC")], r=[c("AD")])
    moves = [m for m in GD.legal_moves(state) if m.src is not None]
    assert [(m.src, m.index) for m in moves] == [("t1", None), ("r", 0)]


# ----------------------------------------------------------------------
# Redeals.


def test_redeal_order() -> None:
    """The new stock deals t4 bottom to top, then t3, t2, t1, then the reserve as dealt."""
    t1, t2, t4, r = [1, 2], [3], [4, 5, 6], [7, 8, 9]
    state = position(GD, f1=up(0, 1), t1=t1, t2=t2, t4=t4, r=r)
    after = GD.apply(state, REDEAL)
    assert pile(GD, after, "s") == stock(4, 5, 6, 3, 1, 2, 7, 8, 9)
    assert all(not pile(GD, after, p) for p in ("t1", "t2", "t3", "t4", "r"))
    assert pile(GD, after, "f1") == up(0, 1)
    assert after.passes == 1
    dealt = GD.apply(after, DEAL)
    assert [pile(GD, dealt, f"t{n}") for n in range(1, 5)] == [(4,), (5,), (6,), (3,)]
    assert pile(GD, dealt, "r") == (1, 2)


def test_redeal_does_not_deal_by_itself() -> None:
    """After a redeal the only action is to deal."""
    after = GD.apply(position(GD, t1=[c("5H")], r=[c("9H")]), REDEAL)
    assert GD.legal_moves(after).texts() == ["deal"]


@pytest.mark.parametrize("passes", [0, 1, 2])
def test_redeal_allowed_three_times(passes: int) -> None:
    """Redeal is offered in passes 0, 1 and 2 once the stock is out."""
    state = position(GD, passes, t3=[c("5H")])
    assert GD.legal_moves(state).texts() == ["redeal"]
    assert GD.apply(state, REDEAL).passes == passes + 1


def test_no_fourth_redeal() -> None:
    """After three redeals no redeal is allowed."""
    state = position(GD, 3, t3=[c("5H")], r=[c("9H")])
    assert refusal(GD, state, REDEAL) == "no redeals are left"


def test_redeal_only_when_the_stock_is_empty() -> None:
    """A redeal is refused while the stock lasts."""
    state = position(GD, s=stock(20), t1=[c("5H")])
    assert refusal(GD, state, REDEAL) == "a redeal is only allowed once the stock is empty"


def test_redeal_only_when_something_to_redeal() -> None:
    """With tableau and reserve empty there is nothing to gather, so no redeal."""
    state = position(GD, f1=up(0, 4))
    assert refusal(GD, state, REDEAL) == "there is nothing to redeal"
    reserve_only = position(GD, r=[c("9H")])
    assert REDEAL in GD.legal_moves(reserve_only)


def test_third_redeal_makes_no_reserve() -> None:
    """The stock of the third redeal is dealt four at a time, with no reserve, until out."""
    state = position(GD, 2, t1=[1, 2], t2=[3], t3=[4], t4=[5], r=[6, 7])
    state = GD.apply(state, REDEAL)
    assert state.passes == 3
    state = GD.apply(state, DEAL)
    assert [pile(GD, state, f"t{n}") for n in range(1, 5)] == [(5,), (4,), (3,), (1,)]
    assert pile(GD, state, "r") == ()
    state = GD.apply(state, DEAL)
    assert [pile(GD, state, f"t{n}") for n in range(1, 5)] == [(5, 2), (4, 6), (3, 7), (1,)]
    assert pile(GD, state, "r") == () and pile(GD, state, "s") == ()


# ----------------------------------------------------------------------
# End of the game.


def test_over_when_last_stock_is_out_and_no_move_remains() -> None:
    """After the third redeal with the stock out and nothing playable, the game is over."""
    state = position(GD, 3, f1=up(0, 1), t1=[c("3C")], t2=[c("9H")])
    assert len(GD.legal_moves(state)) == 0
    assert GD.is_over(state) and not GD.is_won(state)
    view = GD.view(state)
    assert view["over"] and not view["won"] and view["redeals_left"] == 0


def test_not_over_while_a_move_or_action_remains() -> None:
    """A deal, a redeal or a single foundation move keeps the game going."""
    stuck = {"f1": up(0, 1), "t1": [c("3C")]}
    assert not GD.is_over(position(GD, 3, s=stock(20), **stuck))
    assert not GD.is_over(position(GD, 2, **stuck))
    assert not GD.is_over(position(GD, 3, t2=[c("2C")], **stuck))


def test_won_when_every_card_is_home() -> None:
    """All 104 cards on the foundations: won and over, with no redeal offered."""
    foundations = {f"f{s + 1}": up(s, 13) for s in range(4)}
    foundations |= {f"f{s + 5}": down(s, 1, deck=1) for s in range(4)}
    state = position(GD, 0, **foundations)
    assert GD.home(state) == 104
    assert GD.is_won(state) and GD.is_over(state)
    assert len(GD.legal_moves(state)) == 0


# ----------------------------------------------------------------------
# Parisienne.


def test_parisienne_lays_out_an_ace_and_a_king_of_each_suit() -> None:
    """Deck 0's aces and kings start f1-f4 and f5-f8 and are not in the shuffled pack."""
    bases = [(c(f"A{s}"),) for s in "CDHS"] + [(c(f"K{s}"),) for s in "CDHS"]
    pack = PA.pack()
    assert len(pack) == 96
    assert not {card for (card,) in bases} & set(pack)
    assert {c("AC", 1), c("KS", 1)} <= set(pack)
    state = PA.deal(99)
    assert [pile(PA, state, f"f{n}") for n in range(1, 9)] == bases
    assert PA.home(state) == 8
    assert len(pile(PA, state, "s")) == 90 and len(pile(PA, state, "r")) == 2


def test_parisienne_opening_deal_as_grand_duchess() -> None:
    """Parisienne deals its 96 cards exactly as Grand Duchess deals its pack."""
    pack = PA.pack()
    state = PA.lay_out(pack)
    assert [pile(PA, state, f"t{n}") for n in range(1, 5)] == [(p,) for p in pack[:4]]
    assert pile(PA, state, "r") == tuple(pack[4:6])
    assert pile(PA, state, "s") == stock(*pack[6:])


def test_parisienne_builds_on_its_laid_out_bases() -> None:
    """A deuce and a queen go straight onto Parisienne's laid-out ace and king."""
    state = PA.lay_out(PA.pack())
    piles = list(state.piles)
    piles[PA.index["t1"]] = (c("2H"),)
    piles[PA.index["t2"]] = (c("QS", 1),)
    piles[PA.index["t3"]] = (c("AD", 1),)
    state = State(PA.id, tuple(piles))
    assert card_moves(PA, state) == ["t1>f3", "t2>f8"]


# ----------------------------------------------------------------------
# Views.


def visible_cards(view: Mapping[str, object]) -> set[int]:
    piles = view["piles"]
    assert isinstance(piles, dict)
    return {card for cards in piles.values() for card in cards}


@pytest.mark.parametrize("game", [GD, PA], ids=["grand-duchess", "parisienne"])
def test_view_hides_stock_and_face_down_reserve(game: Game) -> None:
    """While the stock lasts, the view shows stock and reserve only as counts."""
    state = game.deal(2024)
    view = game.view(state)
    assert "s" not in view["piles"] and "r" not in view["piles"]
    assert view["hidden"] == {"s": len(pile(game, state, "s")), "r": 2}
    secret = set(pile(game, state, "s")) | set(pile(game, state, "r"))
    assert not visible_cards(view) & secret
    assert view["redeals_left"] == 3


def test_view_shows_spread_reserve_but_never_the_stock() -> None:
    """Once the stock is out the reserve is shown; the (empty) stock is still only a count."""
    state = position(GD, r=[c("AC"), c("9H")], t1=[c("5D")])
    view = GD.view(state)
    assert view["piles"]["r"] == (c("AC"), c("9H"))
    assert view["hidden"] == {"s": 0}
    redealt = GD.apply(state, REDEAL)
    view = GD.view(redealt)
    assert view["hidden"] == {"s": 3, "r": 0} and not visible_cards(view)
    assert view["redeals_left"] == 2


# ----------------------------------------------------------------------
# Whole games.


@pytest.mark.parametrize("game", [GD, PA], ids=["grand-duchess", "parisienne"])
def test_random_playouts_end_and_conserve_cards(game: Game) -> None:
    """Random legal play always ends, keeps all 104 cards, and never shows a face-down card."""
    chooser = random.Random(7)
    for seed in range(30):
        state = game.deal(seed)
        for _ in range(1000):
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.apply(state, chooser.choice(list(moves)))
            assert sorted(card for p in state.piles for card in p) == list(range(104))
            secret = set(pile(game, state, "s"))
            if secret:
                secret |= set(pile(game, state, "r"))
            assert not visible_cards(game.view(state)) & secret
        else:
            pytest.fail(f"{game.id} seed {seed} did not end in 1000 moves")
        assert game.is_over(state) and state.passes <= 3
        assert pile(game, state, "s") == ()
