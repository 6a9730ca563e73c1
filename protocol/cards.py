"""Cards as they travel on the wire: small integer ids.

A card id packs which deck copy, suit and rank a card is::

    id = deck * 52 + suit * 13 + (rank - 1)

with suits in the order clubs, diamonds, hearts, spades (0..3) and ranks
A=1 .. K=13. Two-deck games use ids 0..103; the two copies of a card are
distinct objects but equal for every rule, which is why rules compare
``kind`` (``id % 52``) and never the id itself.

Ids rather than text keep frames small and let a client in any language
decode a card with two divisions.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "RANK_NAMES",
    "SUITS",
    "SUIT_SYMBOLS",
    "Card",
    "CardSyntaxError",
    "card_kind",
    "card_rank",
    "card_suit",
    "card_text",
    "is_red",
    "kind_of",
]

SUITS = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
_SUIT_LETTERS = "CDHS"
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
ACE, JACK, QUEEN, KING = 1, 11, 12, 13


class CardSyntaxError(ValueError):
    """Card text that names no card, such as ``"1♠"`` or ``"QX"``."""


def card_rank(card: int) -> int:
    """Rank 1..13 of a card id."""
    return card % 13 + 1


def card_suit(card: int) -> int:
    """Suit 0..3 (clubs, diamonds, hearts, spades) of a card id."""
    return card % 52 // 13


def card_kind(card: int) -> int:
    """Suit and rank without the deck copy: equal for two copies of a card."""
    return card % 52


def kind_of(suit: int, rank: int) -> int:
    """The kind (``id % 52``) of the card of this suit and rank."""
    return suit * 13 + rank - 1


def is_red(card: int) -> bool:
    """Diamonds and hearts are red."""
    return card_suit(card) in (1, 2)


def card_text(card: int) -> str:
    """The card as a person writes it: ``10♥``, ``Q♠``."""
    return RANK_NAMES[card_rank(card)] + SUIT_SYMBOLS[card_suit(card)]


@dataclass(frozen=True, slots=True)
class Card:
    """A card id with its rank and suit spelled out, for code that reads better so."""

    id: int

    def __post_init__(self) -> None:
        if not 0 <= self.id < 104:
            raise ValueError(f"card id out of range: {self.id}")

    @classmethod
    def parse(cls, text: str, deck: int = 0) -> Card:
        """Read ``Q♠``, ``10♥`` or the ASCII forms ``QS``, ``TH``, ``10h``."""
        body = text.strip()
        if len(body) < 2:
            raise CardSyntaxError(f"not a card: {text!r}")
        rank_text, suit_text = body[:-1].upper(), body[-1]
        if rank_text == "T":
            rank_text = "10"
        if suit_text in SUIT_SYMBOLS:
            suit = SUIT_SYMBOLS.index(suit_text)
        elif suit_text.upper() in _SUIT_LETTERS:
            suit = _SUIT_LETTERS.index(suit_text.upper())
        else:
            raise CardSyntaxError(f"unknown suit in {text!r}")
        if rank_text not in RANK_NAMES[1:]:
            raise CardSyntaxError(f"unknown rank in {text!r}")
        return cls(deck * 52 + kind_of(suit, RANK_NAMES.index(rank_text)))

    @property
    def rank(self) -> int:
        return card_rank(self.id)

    @property
    def suit(self) -> int:
        return card_suit(self.id)

    def text(self) -> str:
        return card_text(self.id)

    def __repr__(self) -> str:
        deck = self.id // 52
        suffix = f", deck={deck}" if deck else ""
        return f"Card.parse({self.text()!r}{suffix})"

    def __str__(self) -> str:
        return self.text()
