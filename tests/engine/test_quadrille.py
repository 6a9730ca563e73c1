"""Quadrille (Captive Queens) against RULES.md.

Foundations f1..f4 are the centre (queens), f5..f8 the compass points (fives
building down) and f9..f12 the corners (sixes building up), each run in suit
order ♣ ♦ ♥ ♠.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from protocol.cards import Card, card_rank
from protocol.layout import Role
from protocol.moves import Move
from server.engine import DEAL_VERSION, IllegalMoveError, State, find_variant
from server.engine.prng import Xoshiro256, deal_key, shuffle

QUADRILLE = find_variant("quadrille")
SUITS = "♣♦♥♠"
DOWN = "5 4 3 2 A K"
UP = "6 7 8 9 10 J"


def cards(texts: str) -> tuple[int, ...]:
    return tuple(Card.parse(text).id for text in texts.split())


def suited(ranks: str, suit: str) -> tuple[int, ...]:
    return cards(" ".join(rank + suit for rank in ranks.split()))


def position(passes: int = 0, **piles: Iterable[int]) -> State:
    """Only the named piles (bottom card first) hold cards."""
    rows: list[tuple[int, ...]] = [() for _ in QUADRILLE.pile_ids]
    for pile_id, pile in piles.items():
        rows[QUADRILLE.index[pile_id]] = tuple(pile)
    return State(QUADRILLE.id, tuple(rows), passes)


def stock(texts: str) -> tuple[int, ...]:
    """A stock that deals ``texts`` from left to right."""
    return QUADRILLE.stock_from(cards(texts))


def pile(state: State, pile_id: str) -> tuple[int, ...]:
    return state.piles[QUADRILLE.index[pile_id]]


def legal(state: State) -> set[str]:
    return set(QUADRILLE.legal_moves(state).texts())


def plays(state: State) -> set[str]:
    """The legal card moves, without the deal and redeal actions."""
    return legal(state) - {"deal", "redeal"}


def play(state: State, *moves: str) -> State:
    for text in moves:
        state = QUADRILLE.apply(state, Move.parse(text))
    return state


def test_one_deck_with_twelve_empty_foundations() -> None:
    """The deal uses 52 cards, all in the stock in pack order; foundations and waste are empty."""
    pack = QUADRILLE.pack()
    assert pack == list(range(52))
    shuffle(pack, Xoshiro256(deal_key(QUADRILLE.id, 77, DEAL_VERSION)))
    state = QUADRILLE.deal(77)
    assert pile(state, "s") == QUADRILLE.stock_from(pack)
    assert pile(state, "w") == ()
    assert len(QUADRILLE.indexes(Role.FOUNDATION)) == 12
    assert all(not pile(state, f"f{n}") for n in range(1, 13))
    assert QUADRILLE.target() == 52


def test_foundations_sit_as_centre_compass_and_corners() -> None:
    """Queens in the centre, fives at the compass points, sixes in the corners of a 5x5 square."""
    spots = {spec.id: (spec.row, spec.col) for spec in QUADRILLE.layout.piles}
    corners = {spots[f"f{n}"] for n in range(9, 13)}
    compass = {spots[f"f{n}"] for n in range(5, 9)}
    centre = {spots[f"f{n}"] for n in range(1, 5)}
    assert corners == {(0, 0), (0, 4), (4, 0), (4, 4)}
    assert compass == {(0, 2), (2, 0), (2, 4), (4, 2)}
    assert all(abs(row - 2) + abs(col - 2) == 1 for row, col in centre)


def test_centre_pile_takes_one_queen_and_nothing_else() -> None:
    """A queen goes to its centre pile; that pile then takes no other card."""
    state = position(w=cards("K♥ Q♥"))
    assert plays(state) == {"w>f3"}
    state = play(state, "w>f3")
    assert pile(state, "f3") == cards("Q♥")
    assert plays(state) == set()


def test_compass_pile_starts_with_a_five_and_builds_down_to_the_king() -> None:
    """A compass pile takes 5-4-3-2-A-K of one suit, then nothing more."""
    sequence = suited(DOWN, "♦")
    state = position(w=cards("Q♦") + sequence[::-1])
    for _ in sequence:
        assert plays(state) == {"w>f6"}
        state = play(state, "w>f6")
    assert pile(state, "f6") == sequence
    assert plays(state) == {"w>f2"}  # the queen goes to the centre, not after the king


def test_corner_pile_starts_with_a_six_and_builds_up_to_the_jack() -> None:
    """A corner pile takes 6-7-8-9-10-J of one suit and refuses the queen."""
    sequence = suited(UP, "♠")
    state = position(w=cards("Q♠") + sequence[::-1])
    for _ in sequence:
        assert plays(state) == {"w>f12"}
        state = play(state, "w>f12")
    assert pile(state, "f12") == sequence
    assert plays(state) == {"w>f4"}


def test_foundations_build_by_suit() -> None:
    """A 4♣ does not go on the 5♦, and a 7♥ not on the 6♣."""
    state = position(f5=cards("5♣"), f9=cards("6♣"), w=cards("4♦"))
    assert plays(state) == set()
    assert plays(position(f5=cards("5♣"), f9=cards("6♣"), w=cards("7♥"))) == set()


@pytest.mark.parametrize("text", ["7♣", "4♥", "A♠", "K♦", "J♣"])
def test_only_a_base_card_starts_an_empty_foundation(text: str) -> None:
    """With every foundation empty, only a Q, 5 or 6 can be played."""
    assert plays(position(w=cards(text))) == set()


def test_only_the_waste_top_is_available() -> None:
    """A queen under the waste top cannot move."""
    assert plays(position(w=cards("Q♣ 9♦"))) == set()


def test_deal_turns_one_card_and_is_allowed_while_moves_exist() -> None:
    """``deal`` moves the top stock card to the waste even when the waste top could go home."""
    state = position(w=cards("Q♣"), s=stock("9♥ K♠"))
    assert legal(state) == {"w>f1", "deal"}
    state = play(state, "deal")
    assert pile(state, "w") == cards("Q♣ 9♥")
    assert pile(state, "s") == cards("K♠")


def test_two_redeals_keep_the_order_then_no_more() -> None:
    """The waste turns over twice, the first card dealt coming first again; not a third time."""
    state = position(s=stock("9♥ K♠ J♦"))
    for passes in (1, 2):
        state = play(state, "deal", "deal", "deal")
        assert legal(state) == {"redeal"}
        state = play(state, "redeal")
        assert state.passes == passes
        assert pile(state, "s") == stock("9♥ K♠ J♦") and pile(state, "w") == ()
    state = play(state, "deal", "deal", "deal")
    assert legal(state) == set()
    with pytest.raises(IllegalMoveError, match="no redeals are left"):
        play(state, "redeal")
    assert QUADRILLE.is_over(state) and not QUADRILLE.is_won(state)


def test_redeal_waits_for_an_empty_stock() -> None:
    """A redeal is refused while the stock still holds cards."""
    state = position(w=cards("9♥"), s=stock("K♠"))
    with pytest.raises(IllegalMoveError, match="once the stock is empty"):
        play(state, "redeal")


def test_real_deal_redeal_repeats_the_first_pass() -> None:
    """On a real deal, the second pass deals the cards in the same order as the first."""
    state = QUADRILLE.deal(31)
    passes: list[list[int]] = [[], []]
    for turn in passes:
        while pile(state, "s"):
            state = play(state, "deal")
            turn.append(pile(state, "w")[-1])
        state = play(state, "redeal")
    assert passes[0] == passes[1] and len(passes[0]) == 52


def test_a_kind_stock_is_won_in_one_pass() -> None:
    """Dealing and playing every card at once wins when the stock comes in building order."""
    order = " ".join(
        f"Q{suit} " + " ".join(r + suit for r in DOWN.split() + UP.split()) for suit in SUITS
    )
    state = position(s=stock(order))
    while pile(state, "s"):
        state = play(state, "deal")
        state = play(state, plays(state).pop())
    assert QUADRILLE.home(state) == 52
    assert QUADRILLE.is_won(state) and QUADRILLE.is_over(state)
    assert state.passes == 0


def test_greedy_playouts_keep_every_card_and_end() -> None:
    """Playing whenever possible, else dealing, a real game ends with all 52 cards accounted for."""
    rng = random.Random(5)
    for seed in range(5):
        state = QUADRILLE.deal(seed)
        while moves := QUADRILLE.legal_moves(state):
            card_moves = [m for m in moves if m.src is not None]
            assert all(m.src == "w" and (m.dst or "").startswith("f") for m in card_moves)
            state = QUADRILLE.apply(state, rng.choice(card_moves or list(moves)))
            assert sorted(c for p in state.piles for c in p) == list(range(52))
        assert QUADRILLE.is_over(state)
        assert QUADRILLE.is_won(state) == (QUADRILLE.home(state) == 52)
        assert state.passes <= 2
        assert all(card_rank(c) in (5, 6, 12) for c in (p[0] for p in state.piles[2:] if p))
