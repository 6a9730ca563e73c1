"""Royal Cotillion, Gavotte, Odd and Even and Contradance against RULES.md.

Each test pins one rule statement, mostly on hand-built positions where only
the piles that matter hold cards; deal-order tests rebuild the shuffled pack
the way deal version 1 specifies it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from protocol.cards import card_rank, card_suit
from protocol.layout import Fan, Role
from protocol.moves import Move
from server.engine import DEAL_VERSION, Game, IllegalMoveError, State, find_variant
from server.engine.prng import Xoshiro256, deal_key, shuffle
from tests.engine.positions import cards, legal, pile, play, run, stock

COTILLION = find_variant("royal-cotillion")
GAVOTTE = find_variant("gavotte")
ODD_EVEN = find_variant("odd-and-even")
CONTRADANCE = find_variant("contradance")
#: The two games with ladies' and lords' sides.
WINGED = [COTILLION, GAVOTTE]
ALL = [COTILLION, GAVOTTE, ODD_EVEN, CONTRADANCE]

ACE_RANKS = (1, 3, 5, 7, 9, 11, 13, 2, 4, 6, 8, 10, 12)
DEUCE_RANKS = (2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11, 13)


def position(game: Game, passes: int = 0, **piles: Iterable[int]) -> State:
    """Only the named piles (bottom card first) hold cards."""
    rows: list[tuple[int, ...]] = [() for _ in game.pile_ids]
    for pile_id, held in piles.items():
        rows[game.index[pile_id]] = tuple(held)
    return State(game.id, tuple(rows), passes)


def plays(game: Game, state: State) -> set[str]:
    """The legal card moves, without the deal and redeal actions."""
    return legal(game, state) - {"deal", "redeal"}


def shuffled_pack(game: Game, seed: int) -> list[int]:
    """The pack of deal ``seed`` in dealing order, rebuilt from the spec."""
    pack = game.pack()
    shuffle(pack, Xoshiro256(deal_key(game.id, seed, DEAL_VERSION)))
    return pack


def laid_bases() -> dict[str, tuple[int, ...]]:
    """Royal Cotillion's foundations as dealt: aces on f1..f4, deuces on f5..f8."""
    bases = cards("A♣ A♦ A♥ A♠ 2♣ 2♦ 2♥ 2♠")
    return {f"f{n}": (base,) for n, base in enumerate(bases, 1)}


def winged(game: Game, **piles: Iterable[int]) -> State:
    """A Royal Cotillion or Gavotte position with every foundation started."""
    return position(game, **{**laid_bases(), **piles})


def full_deck(game: Game) -> list[int]:
    return list(range(52 * game.decks))


# ---------------------------------------------------------------------------
# Royal Cotillion: foundations.


def test_cotillion_lays_out_one_ace_and_one_deuce_of_each_suit() -> None:
    """The deal starts f1..f4 with the aces and f5..f8 with the deuces, taken from the pack."""
    state = COTILLION.deal(7)
    for pile_id, base in laid_bases().items():
        assert pile(COTILLION, state, pile_id) == base
    pack = COTILLION.pack()
    assert len(pack) == 96
    assert not set(pack) & {base for (base,) in laid_bases().values()}
    assert set(cards("A♣ A♦ A♥ A♠ 2♣ 2♦ 2♥ 2♠", deck=1)) <= set(pack)


def test_cotillion_aces_form_the_left_column_and_deuces_the_right() -> None:
    """Aces sit in one column left of both wings, deuces in one column right of them."""
    specs = {spec.id: spec for spec in COTILLION.layout.piles}
    ace_cols = {specs[f"f{n}"].col for n in range(1, 5)}
    deuce_cols = {specs[f"f{n}"].col for n in range(5, 9)}
    wing_cols = {spec.col for spec in specs.values() if spec.role in (Role.TABLEAU, Role.RESERVE)}
    assert len(ace_cols) == len(deuce_cols) == 1
    assert max(ace_cols) < min(wing_cols) and max(wing_cols) < min(deuce_cols)
    assert [specs[f"f{n}"].row for n in range(1, 5)] == [0, 1, 2, 3]


@pytest.mark.parametrize("game", [*WINGED, ODD_EVEN], ids=lambda g: g.id)
def test_ace_foundation_builds_by_suit_in_twos_with_wrap(game: Game) -> None:
    """An ace foundation takes 3-5-7-9-J-K-2-4-6-8-10-Q of its suit and ends with 13 cards."""
    hearts = run("♥", ACE_RANKS, deck=1)
    state = position(game, **{**laid_bases(), "f3": hearts[:1]}, w=hearts[:0:-1])
    for _ in range(12):
        assert "w>f3" in plays(game, state)
        state = play(game, state, "w>f3")
    assert pile(game, state, "f3") == hearts


@pytest.mark.parametrize("game", [*WINGED, ODD_EVEN], ids=lambda g: g.id)
def test_deuce_foundation_builds_by_suit_in_twos_with_wrap(game: Game) -> None:
    """A deuce foundation takes 4-6-8-10-Q-A-3-5-7-9-J-K of its suit and ends with 13 cards."""
    spades = run("♠", DEUCE_RANKS, deck=1)
    state = position(game, **{**laid_bases(), "f8": spades[:1]}, w=spades[:0:-1])
    for _ in range(12):
        assert "w>f8" in plays(game, state)
        state = play(game, state, "w>f8")
    assert pile(game, state, "f8") == spades


def test_cotillion_foundations_build_by_suit_only() -> None:
    """A 3 of another suit does not go on A♣; either copy of 3♣ does."""
    assert plays(COTILLION, position(COTILLION, f1=cards("A♣"), w=cards("3♦"))) == set()
    assert plays(COTILLION, position(COTILLION, f1=cards("A♣"), w=cards("3♣", 1))) == {"w>f1"}


def test_cotillion_foundations_refuse_other_ranks() -> None:
    """A♣ takes neither 2♣ (that is by ones) nor 5♣ (skipping the 3)."""
    state = winged(COTILLION, t1=cards("2♣"), t2=cards("5♣"), t3=cards("4♣"))
    assert plays(COTILLION, state) == {"t3>f5"}


def test_full_ace_foundation_takes_no_fourteenth_card() -> None:
    """After Q an ace foundation is done: the second A♣ can only end a deuce foundation's Q."""
    full = run("♣", ACE_RANKS)
    deuce_to_q = run("♣", DEUCE_RANKS[:6])
    state = winged(COTILLION, f1=full, f5=deuce_to_q, w=cards("A♣", deck=1))
    assert plays(COTILLION, state) == {"w>f5"}
    assert COTILLION.home(position(COTILLION, f1=full)) == 13
    assert COTILLION.target() == 104


# ---------------------------------------------------------------------------
# The ladies' side.


def test_cotillion_ladies_side_is_four_overlapping_columns_of_three() -> None:
    """The deal makes four tableau columns of three cards, drawn fanned down."""
    state = COTILLION.deal(3)
    ladies = [spec for spec in COTILLION.layout.piles if spec.role is Role.TABLEAU]
    assert [spec.id for spec in ladies] == ["t1", "t2", "t3", "t4"]
    assert all(spec.fan is Fan.DOWN for spec in ladies)
    assert [len(pile(COTILLION, state, spec.id)) for spec in ladies] == [3, 3, 3, 3]


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_only_the_uncovered_lady_is_available(game: Game) -> None:
    """A covered card that fits a foundation cannot move; an uncovered one can, then the next."""
    state = winged(game, t1=cards("3♣ 9♦"), t2=cards("5♣ 3♣"))
    assert plays(game, state) == {"t2>f1"}
    state = play(game, state, "t2>f1")
    assert plays(game, state) == {"t2>f1"}
    state = play(game, state, "t2>f1")
    assert pile(game, state, "f1") == cards("A♣ 3♣ 5♣")


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_ladies_vacancy_is_never_refilled(game: Game) -> None:
    """An emptied ladies' column stays empty although waste and stock hold cards."""
    state = winged(game, t1=cards("3♣"), w=cards("9♦"), s=stock(game, "K♥"))
    after = play(game, state, "t1>f1")
    assert pile(game, after, "t1") == ()
    assert pile(game, after, "w") == cards("9♦")
    assert pile(game, after, "s") == cards("K♥")


# ---------------------------------------------------------------------------
# The lords' side.


def test_cotillion_lords_side_is_a_four_by_four_grid() -> None:
    """Sixteen reserve spots in four rows of four, one card each at the deal."""
    lords = [spec for spec in COTILLION.layout.piles if spec.role is Role.RESERVE]
    assert len(lords) == 16
    assert len({(spec.row, spec.col) for spec in lords}) == 16
    assert len({spec.row for spec in lords}) == len({spec.col for spec in lords}) == 4
    state = COTILLION.deal(3)
    assert all(len(pile(COTILLION, state, spec.id)) == 1 for spec in lords)


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_every_lord_is_available(game: Game) -> None:
    """A card on any of the sixteen lords' spots may go to a foundation."""
    for n in range(1, 17):
        state = winged(game, **{f"r{n}": cards("3♣")})
        assert plays(game, state) == {f"r{n}>f1"}


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_lords_gap_takes_the_waste_top_at_once(game: Game) -> None:
    """A lord that leaves is replaced by the top waste card, stock untouched."""
    state = winged(game, r5=cards("3♣"), w=cards("7♦ 9♥"), s=stock(game, "K♠"))
    after = play(game, state, "r5>f1")
    assert pile(game, after, "r5") == cards("9♥")
    assert pile(game, after, "w") == cards("7♦")
    assert pile(game, after, "s") == cards("K♠")


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_lords_gap_takes_the_stock_top_when_the_waste_is_empty(game: Game) -> None:
    """With no waste card the gap is filled at once by the top stock card."""
    state = winged(game, r5=cards("3♣"), s=stock(game, "9♥ K♠"))
    after = play(game, state, "r5>f1")
    assert pile(game, after, "r5") == cards("9♥")
    assert pile(game, after, "s") == cards("K♠")
    assert pile(game, after, "w") == ()


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_lords_gap_stays_empty_without_waste_and_stock(game: Game) -> None:
    """With waste and stock both empty the spot stays empty."""
    after = play(game, winged(game, r5=cards("3♣"), r6=cards("K♦")), "r5>f1")
    assert pile(game, after, "r5") == ()
    assert pile(game, after, "r6") == cards("K♦")


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_refilled_lord_is_available_at_once(game: Game) -> None:
    """The card that fills a gap may itself go home next."""
    state = winged(game, r1=cards("3♣"), w=cards("5♣"))
    after = play(game, state, "r1>f1")
    assert plays(game, after) == {"r1>f1"}


# ---------------------------------------------------------------------------
# Cards go only to foundations.


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_cards_never_move_between_wings_or_within_one(game: Game) -> None:
    """Ladies, lords and the waste cannot take cards, even into an empty spot."""
    state = winged(game, t2=cards("K♦"), r2=cards("K♥"), w=cards("Q♦"), s=stock(game, "9♠"))
    assert legal(game, state) == {"deal"}
    for text in ("t2>t1", "t2>r1", "r2>r1", "r2>t1", "w>r1", "w>t1", "r2>w", "t2>s", "f1>t1"):
        with pytest.raises(IllegalMoveError):
            game.apply(state, Move.parse(text))


@pytest.mark.parametrize("game", ALL, ids=lambda g: g.id)
def test_random_playouts_only_build_foundations_and_keep_every_card(game: Game) -> None:
    """On real deals every card move ends on a foundation and no card is lost or doubled."""
    foundations = set(game.indexes(Role.FOUNDATION))
    rng = random.Random(game.id)
    for seed in (1, 2):
        state = game.deal(seed)
        while moves := game.legal_moves(state):
            for move in moves:
                assert move.dst is None or game.index[move.dst] in foundations
            state = game.apply(state, moves[rng.randrange(len(moves))])
            assert sorted(c for p in state.piles for c in p) == full_deck(game)
        assert game.is_over(state)


# ---------------------------------------------------------------------------
# Dealing.


@pytest.mark.parametrize("game", ALL, ids=lambda g: g.id)
def test_deal_turns_the_top_stock_card_onto_the_waste(game: Game) -> None:
    """``deal`` moves exactly the next stock card onto the waste."""
    state = position(game, w=cards("J♦"), s=stock(game, "9♥ K♠"))
    after = play(game, state, "deal")
    assert pile(game, after, "w") == cards("J♦ 9♥")
    assert pile(game, after, "s") == cards("K♠")


@pytest.mark.parametrize(
    ("game", "foundation", "waste"),
    [
        (COTILLION, {"f1": cards("A♣")}, "3♣ K♦"),
        (GAVOTTE, {}, "A♣ K♦"),
        (ODD_EVEN, {}, "A♣ K♦"),
        (CONTRADANCE, {"f1": cards("5♣")}, "4♣ K♦"),
    ],
    ids=lambda value: value.id if isinstance(value, Game) else "",
)
def test_only_the_waste_top_is_available(
    game: Game, foundation: dict[str, tuple[int, ...]], waste: str
) -> None:
    """A waste card under the top cannot move even though it fits."""
    state = position(game, w=cards(waste), **foundation)
    assert plays(game, state) == set()
    assert plays(game, position(game, w=cards(waste)[:1], **foundation)) == {"w>f1"}


@pytest.mark.parametrize("game", ALL, ids=lambda g: g.id)
def test_deal_is_allowed_while_other_moves_exist(game: Game) -> None:
    """A player may deal although the waste top could go home."""
    state = game.deal(5)
    while not any(move.src for move in game.legal_moves(state)):
        state = play(game, state, "deal")
    assert "deal" in legal(game, state)
    after = play(game, state, "deal")
    assert len(pile(game, after, "s")) == len(pile(game, state, "s")) - 1


def test_cotillion_stock_is_dealt_once() -> None:
    """With the stock empty Royal Cotillion offers no redeal and refuses one."""
    state = winged(COTILLION, w=cards("K♦ Q♥"))
    assert legal(COTILLION, state) == set()
    with pytest.raises(IllegalMoveError, match="no redeal"):
        play(COTILLION, state, "redeal")
    assert COTILLION.is_over(state) and not COTILLION.is_won(state)


@pytest.mark.parametrize("game", WINGED, ids=lambda g: g.id)
def test_winged_deal_order(game: Game) -> None:
    """Ladies' columns row by row, then lords row by row, then the stock in pack order."""
    seed = 12345
    pack = shuffled_pack(game, seed)
    state = game.deal(seed)
    for column in range(4):
        assert pile(game, state, f"t{column + 1}") == tuple(pack[column:12:4])
    for n in range(16):
        assert pile(game, state, f"r{n + 1}") == (pack[12 + n],)
    assert pile(game, state, "s") == game.stock_from(pack[28:])
    assert len(pack[28:]) == (68 if game is COTILLION else 76)
    after = play(game, state, "deal", "deal")
    assert pile(game, after, "w") == tuple(pack[28:30])


@pytest.mark.parametrize("game", [*WINGED, ODD_EVEN], ids=lambda g: g.id)
def test_won_position_is_won_and_over(game: Game) -> None:
    """Every card home: won, over, no legal move."""
    state = position(
        game,
        **{f"f{n}": run(suit, ACE_RANKS) for n, suit in enumerate("♣♦♥♠", 1)},
        **{f"f{n}": run(suit, DEUCE_RANKS, deck=1) for n, suit in enumerate("♣♦♥♠", 5)},
    )
    assert game.home(state) == game.target() == 104
    assert game.is_won(state) and game.is_over(state)
    assert len(game.legal_moves(state)) == 0


def test_cotillion_position_with_a_stock_is_not_over() -> None:
    """While the stock holds a card the game goes on, even with nothing to play."""
    state = winged(COTILLION, s=stock(COTILLION, "K♦"))
    assert not COTILLION.is_over(state) and not COTILLION.is_won(state)


# ---------------------------------------------------------------------------
# Gavotte: the two differences.


def test_gavotte_lays_out_no_foundation() -> None:
    """All eight foundations start empty and the whole 104-card pack is dealt."""
    state = GAVOTTE.deal(7)
    assert all(not pile(GAVOTTE, state, f"f{n}") for n in range(1, 9))
    assert GAVOTTE.pack() == full_deck(GAVOTTE)
    assert len(pile(GAVOTTE, state, "s")) == 104 - 12 - 16


def test_gavotte_wings_match_royal_cotillion() -> None:
    """Apart from the foundations, Gavotte's layout is Royal Cotillion's."""
    other = [(s.id, s.role, s.row, s.col, s.fan) for s in COTILLION.layout.piles]
    mine = [(s.id, s.role, s.row, s.col, s.fan) for s in GAVOTTE.layout.piles]
    assert mine == other


@pytest.mark.parametrize("deck", [0, 1])
def test_gavotte_any_available_ace_starts_its_suit_foundation(deck: int) -> None:
    """Either copy of A♥, from waste, ladies or lords, starts the hearts ace foundation."""
    for source in ("w", "t2", "r9"):
        state = position(GAVOTTE, **{source: cards("A♥", deck)})
        assert plays(GAVOTTE, state) == {f"{source}>f3"}
        assert pile(GAVOTTE, play(GAVOTTE, state, f"{source}>f3"), "f3") == cards("A♥", deck)


@pytest.mark.parametrize("game", [GAVOTTE, ODD_EVEN], ids=lambda g: g.id)
def test_any_available_deuce_starts_its_suit_foundation(game: Game) -> None:
    """A 2♦ starts the diamonds deuce foundation f6 and no other."""
    state = position(game, r1=cards("2♦", deck=1))
    assert plays(game, state) == {"r1>f6"}


@pytest.mark.parametrize("game", [GAVOTTE, ODD_EVEN], ids=lambda g: g.id)
def test_unstarted_foundation_takes_only_its_base(game: Game) -> None:
    """With no foundation started, a 3 or 4 has nowhere to go."""
    state = position(game, w=cards("3♣"), r1=cards("4♣"), r2=cards("K♥"))
    assert plays(game, state) == set()


@pytest.mark.parametrize("game", [GAVOTTE, ODD_EVEN], ids=lambda g: g.id)
def test_started_foundation_builds_as_in_royal_cotillion(game: Game) -> None:
    """Once started by its ace, a foundation builds 3-5-...-Q like Royal Cotillion's."""
    clubs = run("♣", ACE_RANKS)
    state = position(game, f5=cards("2♣", deck=1), w=clubs[::-1])
    for _ in range(13):
        assert "w>f1" in plays(game, state)
        state = play(game, state, "w>f1")
    assert pile(game, state, "f1") == clubs


@pytest.mark.parametrize("game", [GAVOTTE, ODD_EVEN, CONTRADANCE], ids=lambda g: g.id)
def test_one_redeal_preserves_the_order(game: Game) -> None:
    """After the stock runs out the waste becomes the stock; the first card dealt comes first."""
    state = position(game, s=stock(game, "9♥ K♠ J♦"))
    state = play(game, state, "deal", "deal", "deal")
    assert legal(game, state) == {"redeal"}
    state = play(game, state, "redeal")
    assert state.passes == 1 and pile(game, state, "w") == ()
    state = play(game, state, "deal")
    assert pile(game, state, "w") == cards("9♥")
    state = play(game, state, "deal", "deal")
    assert pile(game, state, "w") == cards("9♥ K♠ J♦")
    assert legal(game, state) == set()
    with pytest.raises(IllegalMoveError, match="no redeals are left"):
        play(game, state, "redeal")
    assert game.is_over(state) and not game.is_won(state)


@pytest.mark.parametrize("game", [GAVOTTE, ODD_EVEN, CONTRADANCE], ids=lambda g: g.id)
def test_redeal_waits_for_an_empty_stock(game: Game) -> None:
    """A redeal is refused while the stock still holds cards."""
    state = position(game, w=cards("9♥"), s=stock(game, "K♠"))
    assert "redeal" not in legal(game, state)
    with pytest.raises(IllegalMoveError, match="once the stock is empty"):
        play(game, state, "redeal")


def test_gavotte_redeal_on_a_real_deal_deals_the_same_sequence_again() -> None:
    """Dealing a real stock, redealing and dealing again repeats the first pass's order."""
    state = GAVOTTE.deal(99)
    first: list[int] = []
    while pile(GAVOTTE, state, "s"):
        state = play(GAVOTTE, state, "deal")
        first.append(pile(GAVOTTE, state, "w")[-1])
    state = play(GAVOTTE, state, "redeal")
    second: list[int] = []
    while pile(GAVOTTE, state, "s"):
        state = play(GAVOTTE, state, "deal")
        second.append(pile(GAVOTTE, state, "w")[-1])
    assert second == first == shuffled_pack(GAVOTTE, 99)[28:]


# ---------------------------------------------------------------------------
# Odd and Even.


def test_odd_and_even_has_a_three_by_three_reserve_and_no_ladies() -> None:
    """Nine reserve spots in three rows of three, no tableau, empty foundations."""
    reserve = [spec for spec in ODD_EVEN.layout.piles if spec.role is Role.RESERVE]
    assert len(reserve) == 9
    assert len({spec.row for spec in reserve}) == len({spec.col for spec in reserve}) == 3
    assert not ODD_EVEN.indexes(Role.TABLEAU)
    state = ODD_EVEN.deal(4)
    assert all(not pile(ODD_EVEN, state, f"f{n}") for n in range(1, 9))


def test_odd_and_even_deal_order() -> None:
    """The reserve row by row, then the 95-card stock in pack order."""
    pack = shuffled_pack(ODD_EVEN, 2024)
    state = ODD_EVEN.deal(2024)
    assert [pile(ODD_EVEN, state, f"r{n}") for n in range(1, 10)] == [(c,) for c in pack[:9]]
    assert pile(ODD_EVEN, state, "s") == ODD_EVEN.stock_from(pack[9:])
    assert len(pack) - 9 == 95


def test_odd_and_even_every_reserve_card_is_available() -> None:
    """An ace on any of the nine reserve spots may start its foundation."""
    for n in range(1, 10):
        assert plays(ODD_EVEN, position(ODD_EVEN, **{f"r{n}": cards("A♠")})) == {f"r{n}>f4"}


def test_odd_and_even_gap_takes_the_waste_top() -> None:
    """A reserve gap is filled at once from the waste top."""
    state = position(ODD_EVEN, r4=cards("A♣"), w=cards("7♦ 9♥"), s=stock(ODD_EVEN, "K♠"))
    after = play(ODD_EVEN, state, "r4>f1")
    assert pile(ODD_EVEN, after, "r4") == cards("9♥")
    assert pile(ODD_EVEN, after, "s") == cards("K♠")


def test_odd_and_even_gap_takes_the_stock_top_when_the_waste_is_empty() -> None:
    """With no waste card the gap is filled from the stock."""
    state = position(ODD_EVEN, r4=cards("A♣"), s=stock(ODD_EVEN, "9♥ K♠"))
    after = play(ODD_EVEN, state, "r4>f1")
    assert pile(ODD_EVEN, after, "r4") == cards("9♥")
    assert pile(ODD_EVEN, after, "s") == cards("K♠")


def test_odd_and_even_gap_stays_empty_without_waste_and_stock() -> None:
    """With waste and stock both empty the gap stays."""
    after = play(ODD_EVEN, position(ODD_EVEN, r4=cards("A♣")), "r4>f1")
    assert pile(ODD_EVEN, after, "r4") == ()


# ---------------------------------------------------------------------------
# Contradance.


def test_contradance_lays_out_all_fives_and_sixes() -> None:
    """All sixteen 5s and 6s start the foundations; the other 88 cards are dealt."""
    state = CONTRADANCE.deal(11)
    bases = [pile(CONTRADANCE, state, f"f{n}") for n in range(1, 17)]
    assert all(len(base) == 1 for base in bases)
    on_foundations = sorted(base[0] for base in bases)
    fives_and_sixes = sorted(c for c in full_deck(CONTRADANCE) if card_rank(c) in (5, 6))
    assert on_foundations == fives_and_sixes
    assert [card_rank(base[0]) for base in bases] == [5] * 8 + [6] * 8
    assert [card_suit(base[0]) for base in bases] == [0, 1, 2, 3] * 4
    assert sorted(CONTRADANCE.pack()) == sorted(set(full_deck(CONTRADANCE)) - set(fives_and_sixes))
    assert len(pile(CONTRADANCE, state, "s")) == 88


def test_contradance_deals_only_to_the_stock() -> None:
    """No tableau or reserve: the deal puts every card but the bases in the stock."""
    pack = shuffled_pack(CONTRADANCE, 11)
    state = CONTRADANCE.deal(11)
    assert pile(CONTRADANCE, state, "s") == CONTRADANCE.stock_from(pack)
    assert pile(CONTRADANCE, state, "w") == ()
    assert set(CONTRADANCE.pile_ids) == {"s", "w"} | {f"f{n}" for n in range(1, 17)}


def test_contradance_fives_build_down_to_the_ace_then_the_king() -> None:
    """A five foundation takes 4-3-2-A-K of its suit, then nothing more."""
    sequence = cards("4♥ 3♥ 2♥ A♥ K♥")
    fives_and_sixes = {
        "f3": cards("5♥"),
        "f7": cards("5♥", deck=1),
        "f11": run("♥", range(6, 12)),
        "f15": run("♥", range(6, 12), deck=1),
    }
    state = position(CONTRADANCE, w=cards("Q♥") + sequence[::-1], **fives_and_sixes)
    assert plays(CONTRADANCE, state) == {"w>f3", "w>f7"}  # either five of the suit
    for _ in sequence:
        assert "w>f3" in plays(CONTRADANCE, state)
        state = play(CONTRADANCE, state, "w>f3")
    assert pile(CONTRADANCE, state, "f3") == cards("5♥") + sequence
    assert plays(CONTRADANCE, state) == {"w>f11", "w>f15"}  # Q♥ ends a six, not a five


def test_contradance_sixes_build_up_to_the_queen() -> None:
    """A six foundation takes 7-8-9-10-J-Q of its suit, then not the king."""
    sequence = cards("7♠ 8♠ 9♠ 10♠ J♠ Q♠")
    state = position(CONTRADANCE, f4=cards("5♠"), f12=cards("6♠"), w=cards("K♠") + sequence[::-1])
    for _ in sequence:
        assert plays(CONTRADANCE, state) == {"w>f12"}
        state = play(CONTRADANCE, state, "w>f12")
    assert pile(CONTRADANCE, state, "f12") == cards("6♠") + sequence
    assert plays(CONTRADANCE, state) == set()


def test_contradance_won_position_is_won_and_over() -> None:
    """All 104 cards home is a win with no move left."""
    down, up = (5, 4, 3, 2, 1, 13), (6, 7, 8, 9, 10, 11, 12)
    foundations = {
        f"f{n + 4 * deck + 8 * half}": run(suit, ranks, deck)
        for half, ranks in enumerate((down, up))
        for deck in (0, 1)
        for n, suit in enumerate("♣♦♥♠", 1)
    }
    state = position(CONTRADANCE, **foundations)
    assert CONTRADANCE.home(state) == CONTRADANCE.target() == 104
    assert CONTRADANCE.is_won(state) and CONTRADANCE.is_over(state)


@pytest.mark.parametrize("game", ALL, ids=lambda game: game.id)
def test_a_refused_card_on_a_foundation_names_the_card_it_needs(game: Game) -> None:
    """Onto a foundation, the refusal says which card it takes next (or that it is full)."""
    state = game.apply(game.deal(7), Move.parse("deal"))  # something in the waste
    foundations = game.built_foundations()
    assert foundations is not None
    for src in ("w", *(f"t{n}" for n in range(1, 13)), *(f"r{n}" for n in range(1, 13))):
        if src not in game.index or not state.piles[game.index[src]]:
            continue
        for dst in (spec.id for spec in game.layout.piles if spec.role is Role.FOUNDATION):
            move = Move.card(src, dst)
            if move in game.legal_moves(state):
                continue
            with pytest.raises(IllegalMoveError) as refused:
                game.apply(state, move)
            wanted = foundations.next_kind(state.piles, game.index[dst])
            assert wanted is not None
            assert refused.value.reason.startswith(f"{dst} needs the ")
            return
    raise AssertionError("no refused move onto a foundation in the opening")
