"""Royal Rendezvous and its SolSuite variant against RULES.md.

Foundations f1..f4 are the upper aces, f5..f8 the lower aces and f9..f12 the
deuces, each run in suit order ♣ ♦ ♥ ♠; r1..r16 are the reserve.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable

import pytest

from protocol.cards import card_rank
from protocol.layout import Role
from protocol.moves import Move
from server.engine import DEAL_VERSION, Game, IllegalMoveError, State, find_variant
from server.engine.prng import Xoshiro256, deal_key, shuffle
from tests.engine.positions import cards, legal, pile, play, run, stock

RENDEZVOUS = find_variant("royal-rendezvous")
SOLSUITE = find_variant("royal-rendezvous-solsuite")
BOTH = [RENDEZVOUS, SOLSUITE]
SUITS = "♣♦♥♠"


def bases() -> dict[str, tuple[int, ...]]:
    """The foundations as dealt: upper aces (deck 0), lower aces (deck 1), deuces."""
    out = {f"f{n}": cards(f"A{suit}") for n, suit in enumerate(SUITS, 1)}
    out |= {f"f{n}": cards(f"A{suit}", deck=1) for n, suit in enumerate(SUITS, 5)}
    out |= {f"f{n}": cards(f"2{suit}") for n, suit in enumerate(SUITS, 9)}
    return out


def position(game: Game, **piles: Iterable[int]) -> State:
    """Foundations as dealt, overridden and joined by the named piles (bottom first)."""
    rows: list[tuple[int, ...]] = [() for _ in game.pile_ids]
    for pile_id, held in {**bases(), **piles}.items():
        rows[game.index[pile_id]] = tuple(held)
    return State(game.id, tuple(rows))


def full_reserve(game: Game, **piles: Iterable[int]) -> State:
    """Like :func:`position`, with a filler (second deck's 5 to 8) on every unnamed reserve spot.

    No filler fits a foundation that has not passed its 4, so the fillers never move.
    """
    fillers = iter(run(suit, (5, 6, 7, 8), deck=1)[i] for i in range(4) for suit in SUITS)
    spots = {f"r{n}": (next(fillers),) for n in range(1, 17)}
    return position(game, **{**spots, **piles})


# ---------------------------------------------------------------------------
# Foundations.


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_deal_lays_out_all_aces_and_one_deuce_of_each_suit(game: Game) -> None:
    """Twelve foundations start with 8 aces and 4 deuces; the other 92 cards are dealt."""
    state = game.deal(8)
    for pile_id, base in bases().items():
        assert pile(game, state, pile_id) == base
    pack = game.pack()
    assert len(pack) == 92
    assert not any(card_rank(c) == 1 for c in pack)
    assert sorted(c for c in pack if card_rank(c) == 2) == list(cards("2♣ 2♦ 2♥ 2♠", deck=1))


def test_foundation_rows_have_deuces_two_each_side_of_the_aces() -> None:
    """Upper aces in one row, lower aces below them, two deuce columns on each side."""
    specs = {spec.id: spec for spec in RENDEZVOUS.layout.piles}
    upper = [specs[f"f{n}"] for n in range(1, 5)]
    lower = [specs[f"f{n}"] for n in range(5, 9)]
    deuce_cols = sorted(specs[f"f{n}"].col for n in range(9, 13))
    ace_cols = [spec.col for spec in upper]
    assert len({spec.row for spec in upper}) == len({spec.row for spec in lower}) == 1
    assert upper[0].row < lower[0].row
    assert [spec.col for spec in lower] == ace_cols
    assert deuce_cols[1] < min(ace_cols) and deuce_cols[2] > max(ace_cols)


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_upper_aces_build_by_ones_to_the_king(game: Game) -> None:
    """An upper ace takes 2-3-4-...-Q-K of its suit, then nothing more."""
    hearts = run("♥", range(2, 14), deck=1)
    done = {"f7": run("♥", (1, 3, 5, 7, 9, 11, 13))}  # lower ace finished: kings allowed
    state = position(game, w=cards("A♥", deck=1) + hearts[::-1], **done)
    for _ in hearts:
        assert "w>f3" in legal(game, state)
        state = play(game, state, "w>f3")
    assert pile(game, state, "f3") == cards("A♥") + hearts
    assert legal(game, state) == set()


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_lower_aces_build_by_twos_to_the_king(game: Game) -> None:
    """A lower ace takes 3-5-7-9-J-K of its suit and ends there."""
    odd = run("♣", (3, 5, 7, 9, 11, 13))
    state = position(game, f1=run("♣", range(1, 14), deck=1), w=cards("2♣", 1) + odd[::-1])
    for _ in odd:
        assert legal(game, state) == {"w>f5"}
        state = play(game, state, "w>f5")
    assert pile(game, state, "f5") == cards("A♣", deck=1) + odd
    assert len(pile(game, state, "f5")) == 7
    assert legal(game, state) == set()  # the 2♣ after K: no wrap


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_deuces_build_by_twos_to_the_queen(game: Game) -> None:
    """A deuce takes 4-6-8-10-Q of its suit and ends there."""
    even = run("♠", (4, 6, 8, 10, 12), deck=1)
    upper_done = run("♠", range(1, 14))
    state = position(game, f4=upper_done, w=cards("A♠", 1) + even[::-1])
    for _ in even:
        assert legal(game, state) == {"w>f12"}
        state = play(game, state, "w>f12")
    assert pile(game, state, "f12") == cards("2♠") + even
    assert legal(game, state) == set()  # the A♠ after Q: no wrap


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_a_card_two_foundations_want_may_go_to_either(game: Game) -> None:
    """A 3♦ fits the upper ace after its 2 and the lower ace: both moves are offered."""
    state = position(game, f2=cards("A♦ 2♦", deck=1), w=cards("3♦"))
    assert legal(game, state) == {"w>f2", "w>f6"}


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_foundations_build_by_suit(game: Game) -> None:
    """A 2 of another suit does not go on the upper A♣."""
    assert legal(game, position(game, w=cards("2♦"))) == {"w>f2"}
    assert legal(game, position(game, w=cards("2♣", deck=1))) == {"w>f1"}


# ---------------------------------------------------------------------------
# The reserve.


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_reserve_is_two_rows_of_eight(game: Game) -> None:
    """Sixteen reserve spots in two rows of eight, one card each at the deal."""
    reserve = [spec for spec in game.layout.piles if spec.role is Role.RESERVE]
    assert [spec.id for spec in reserve] == [f"r{n}" for n in range(1, 17)]
    assert [spec.row for spec in reserve] == [reserve[0].row] * 8 + [reserve[0].row + 1] * 8
    assert len({spec.col for spec in reserve}) == 8
    state = game.deal(8)
    assert all(len(pile(game, state, spec.id)) == 1 for spec in reserve)


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_every_reserve_card_is_available(game: Game) -> None:
    """A card on any of the sixteen reserve spots may go to a foundation."""
    for n in range(1, 17):
        state = position(game, **{f"r{n}": cards("4♠")})
        assert legal(game, state) == {f"r{n}>f12"}


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_reserve_cards_go_only_to_foundations(game: Game) -> None:
    """Neither the reserve nor the waste may take a card, even into a gap."""
    state = position(game, r2=cards("K♥"), w=cards("Q♦"), s=stock(game, "9♠"))
    assert legal(game, state) == {"deal"}
    for text in ("r2>r1", "w>r1", "r2>w", "r2>s", "f1>r1"):
        with pytest.raises(IllegalMoveError):
            game.apply(state, Move.parse(text))


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_gap_takes_the_waste_top_at_once(game: Game) -> None:
    """A reserve card that leaves is replaced at once by the top waste card."""
    state = full_reserve(game, r7=cards("4♥"), w=cards("7♦ 9♥"), s=stock(game, "K♠"))
    after = play(game, state, "r7>f11")
    assert pile(game, after, "r7") == cards("9♥")
    assert pile(game, after, "w") == cards("7♦")
    assert pile(game, after, "s") == cards("K♠")


def dealt(state: State) -> State:
    """The same position, as if a card had already been dealt to the waste."""
    return dataclasses.replace(state, deals=1)


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_gap_with_an_empty_waste_waits_for_the_next_dealt_card(game: Game) -> None:
    """Ruling: once dealing has begun, a gap finding no waste card waits for the next deal."""
    state = dealt(full_reserve(game, r7=cards("4♥"), s=stock(game, "9♥ K♠")))
    after = play(game, state, "r7>f11")
    assert pile(game, after, "r7") == ()
    assert pile(game, after, "s") == stock(game, "9♥ K♠")
    after = play(game, after, "deal")
    assert pile(game, after, "r7") == cards("9♥")
    assert pile(game, after, "w") == ()
    after = play(game, after, "deal")
    assert pile(game, after, "w") == cards("K♠")


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_dealt_cards_fill_the_first_gap_first(game: Game) -> None:
    """Several waiting gaps are filled in reserve order before the waste gets a card."""
    state = full_reserve(game, r3=cards("4♥"), r12=cards("4♦"), s=stock(game, "9♥ K♠ J♣"))
    state = play(game, dealt(state), "r12>f10", "r3>f11")
    state = play(game, state, "deal")
    assert pile(game, state, "r3") == cards("9♥") and pile(game, state, "r12") == ()
    state = play(game, state, "deal", "deal")
    assert pile(game, state, "r12") == cards("K♠")
    assert pile(game, state, "w") == cards("J♣")


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_gap_stays_empty_when_the_stock_is_out(game: Game) -> None:
    """With waste and stock both empty the gap stays and the game can end."""
    state = play(game, position(game, r7=cards("4♥"), r8=cards("K♦")), "r7>f11")
    assert pile(game, state, "r7") == ()
    assert game.is_over(state) and not game.is_won(state)


def test_gap_before_the_first_deal_is_filled_from_the_stock() -> None:
    """Before any card is dealt (no waste exists yet), a gap is filled at once from the stock."""
    for seed in range(100):
        state = RENDEZVOUS.deal(seed)
        moves = [m for m in RENDEZVOUS.legal_moves(state) if m.src and m.src.startswith("r")]
        if moves:
            break
    gap = moves[0].src or ""
    after = RENDEZVOUS.apply(state, moves[0])
    assert pile(RENDEZVOUS, after, gap) == pile(RENDEZVOUS, state, "s")[-1:]


# ---------------------------------------------------------------------------
# Dealing.


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_deal_order_is_reserve_row_by_row_then_stock(game: Game) -> None:
    """The shuffled pack fills r1..r16 in order, and the rest is the stock, dealt in order."""
    seed = 4242
    pack = game.pack()
    shuffle(pack, Xoshiro256(deal_key(game.id, seed, DEAL_VERSION)))
    state = game.deal(seed)
    assert [pile(game, state, f"r{n}") for n in range(1, 17)] == [(c,) for c in pack[:16]]
    assert pile(game, state, "s") == game.stock_from(pack[16:])
    assert len(pack[16:]) == 76
    assert pile(game, play(game, state, "deal"), "w") == (pack[16],)


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_deal_turns_one_card_and_is_allowed_while_moves_exist(game: Game) -> None:
    """``deal`` puts the top stock card on the waste even when the waste top could go home."""
    state = full_reserve(game, w=cards("3♣"), s=stock(game, "9♥ K♠"))
    assert legal(game, state) == {"w>f5", "deal"}
    after = play(game, state, "deal")
    assert pile(game, after, "w") == cards("3♣ 9♥")
    assert pile(game, after, "s") == cards("K♠")


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_only_the_waste_top_is_available(game: Game) -> None:
    """A waste card under the top cannot move even though it fits."""
    assert legal(game, position(game, w=cards("4♠ K♦"))) == set()


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_there_is_no_redeal(game: Game) -> None:
    """With the stock out the waste is never turned over."""
    state = position(game, w=cards("K♦ Q♥"))
    assert legal(game, state) == set()
    with pytest.raises(IllegalMoveError, match="no redeal"):
        play(game, state, "redeal")
    assert game.is_over(state) and not game.is_won(state)


@pytest.mark.parametrize("game", BOTH, ids=lambda g: g.id)
def test_random_playouts_only_build_foundations_and_keep_every_card(game: Game) -> None:
    """On real deals every card move ends on a foundation and no card is lost or doubled."""
    foundations = set(game.indexes(Role.FOUNDATION))
    rng = random.Random(game.id)
    for seed in (1, 2):
        state = game.deal(seed)
        while moves := game.legal_moves(state):
            assert all(m.dst is None or game.index[m.dst] in foundations for m in moves)
            state = game.apply(state, moves[rng.randrange(len(moves))])
            assert sorted(c for p in state.piles for c in p) == list(range(104))
        assert game.is_over(state)


def test_won_position_is_won_and_over() -> None:
    """All 104 cards home: won, over, nothing to play."""
    foundations = {
        **{f"f{n}": run(s, range(1, 14)) for n, s in enumerate(SUITS, 1)},
        **{f"f{n}": run(s, (1, 3, 5, 7, 9, 11, 13), 1) for n, s in enumerate(SUITS, 5)},
        **{f"f{n}": run(s, (2, 4, 6, 8, 10, 12), 1) for n, s in enumerate(SUITS, 9)},
    }
    state = position(RENDEZVOUS, **foundations)
    assert RENDEZVOUS.home(state) == RENDEZVOUS.target() == 104
    assert RENDEZVOUS.is_won(state) and RENDEZVOUS.is_over(state)


# ---------------------------------------------------------------------------
# SolSuite: the upper aces' kings.


def test_solsuite_upper_ace_waits_for_the_lower_ace_king() -> None:
    """An upper ace at Q may not take a K until the other K is on the lower ace."""
    upper_to_q = run("♣", range(1, 13))
    lower_to_j = run("♣", (1, 3, 5, 7, 9, 11), deck=1)
    state = position(SOLSUITE, f1=upper_to_q, f5=lower_to_j, w=cards("K♣"), r1=cards("K♣", 1))
    assert legal(SOLSUITE, state) == {"w>f5", "r1>f5"}
    with pytest.raises(IllegalMoveError):
        play(SOLSUITE, state, "w>f1")
    after = play(SOLSUITE, state, "w>f5")
    assert legal(SOLSUITE, after) == {"r1>f1"}


def test_plain_rendezvous_lets_the_upper_ace_take_either_king() -> None:
    """Without the SolSuite restriction a K goes on the upper ace at once."""
    upper_to_q = run("♣", range(1, 13))
    lower_to_j = run("♣", (1, 3, 5, 7, 9, 11), deck=1)
    state = position(RENDEZVOUS, f1=upper_to_q, f5=lower_to_j, w=cards("K♣"))
    assert legal(RENDEZVOUS, state) == {"w>f1", "w>f5"}


def test_solsuite_restriction_is_per_suit() -> None:
    """The hearts lower ace being done frees the hearts king only, not the clubs one."""
    state = position(
        SOLSUITE,
        f1=run("♣", range(1, 13)),
        f3=run("♥", range(1, 13)),
        f7=run("♥", (1, 3, 5, 7, 9, 11, 13), deck=1),
        r1=cards("K♣"),
        r2=cards("K♥"),
    )
    assert legal(SOLSUITE, state) == {"r2>f3"}
