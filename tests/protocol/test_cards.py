"""Card ids and their text forms."""

from __future__ import annotations

import pytest

from protocol.cards import (
    RANK_NAMES,
    SUIT_SYMBOLS,
    Card,
    CardSyntaxError,
    card_kind,
    card_rank,
    card_suit,
    card_text,
    is_red,
    kind_of,
)

ASCII_SUITS = "CDHS"


def test_id_packs_deck_suit_and_rank() -> None:
    """id = deck * 52 + suit * 13 + rank - 1, suits in the order clubs, diamonds, hearts, spades."""
    for deck in (0, 1):
        for suit in range(4):
            for rank in range(1, 14):
                card = deck * 52 + suit * 13 + rank - 1
                kind = card % 52
                assert (card_suit(card), card_rank(card), card_kind(card)) == (suit, rank, kind)
                assert kind_of(suit, rank) == kind
    assert Card.parse("A♣").id == 0 and Card.parse("K♠").id == 51
    assert Card.parse("Q♥", deck=1).id == 52 + 2 * 13 + 11


def test_two_copies_of_a_card_share_a_kind() -> None:
    """The deck copies differ by id only; kind, rank, suit and text agree."""
    first, second = Card.parse("7♦"), Card.parse("7♦", deck=1)
    assert first != second
    assert card_kind(first.id) == card_kind(second.id)
    assert (first.rank, first.suit, first.text()) == (second.rank, second.suit, second.text())


@pytest.mark.parametrize("card", range(104))
def test_symbol_text_round_trips(card: int) -> None:
    """Card.parse(text, deck) gives back the card whose text it is."""
    value = Card(card)
    assert Card.parse(value.text(), deck=card // 52) == value
    assert str(value) == card_text(card) == value.text()


@pytest.mark.parametrize("card", range(52))
def test_ascii_text_reads_like_the_symbol_form(card: int) -> None:
    """``QS``, ``qs``, ``TH`` and ``10h`` name the same card as ``Q♠`` and ``10♥``."""
    rank, suit = RANK_NAMES[card_rank(card)], ASCII_SUITS[card_suit(card)]
    forms = {rank + suit, rank.lower() + suit.lower()}
    if rank == "10":
        forms |= {"T" + suit, "t" + suit.lower()}
    for form in forms:
        assert Card.parse(form).id == card
        assert Card.parse(f"  {form} ").id == card


def test_ten_is_written_10_and_read_as_10_or_t() -> None:
    """Text output spells ten as ``10``; parsing accepts ``10`` and ``T``."""
    ten = Card.parse("T♥")
    assert ten.text() == "10♥"
    assert Card.parse("10♥") == ten == Card.parse("th")


def test_repr_rebuilds_the_card() -> None:
    """repr shows the parse call, with the deck when it is not 0."""
    for card in (Card(0), Card(51), Card(52 + 9), Card(103)):
        assert eval(repr(card), {"Card": Card}) == card
    assert repr(Card.parse("10♥")) == "Card.parse('10♥')"
    assert repr(Card.parse("10♥", deck=1)) == "Card.parse('10♥', deck=1)"


def test_red_suits() -> None:
    """Diamonds and hearts are red, clubs and spades black, in both decks."""
    assert [is_red(Card.parse("5" + s, deck).id) for deck in (0, 1) for s in SUIT_SYMBOLS] == [
        False,
        True,
        True,
        False,
    ] * 2


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "♠",
        "Q",
        "10",
        "1♠",
        "11♠",
        "0S",
        "QX",
        "Q♤",
        "AA",
        "10♥♥",
        "010♥",
        "TT",
        "♠Q",
        "QS!",
    ],
)
def test_bad_text_raises_card_syntax_error(text: str) -> None:
    """Text that names no card raises CardSyntaxError, a ValueError."""
    with pytest.raises(CardSyntaxError):
        Card.parse(text)
    assert issubclass(CardSyntaxError, ValueError)


@pytest.mark.parametrize("card", [-1, 104, 1000])
def test_card_id_out_of_range_is_refused(card: int) -> None:
    """A Card holds only ids 0..103."""
    with pytest.raises(ValueError):
        Card(card)
