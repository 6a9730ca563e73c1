"""The variants a player can pick, with one line each: the server sends no descriptions.

Only names and a hint of what each game is like; the rules stay on the
server. A variant the server adds later can still be raced by id.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["VARIANTS", "Variant", "title_of"]


class Variant(NamedTuple):
    id: str
    title: str
    line: str


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "quadrille", "Quadrille", "One deck. Queens sit in the centre; fives go down, sixes up."
    ),
    Variant(
        "royal-cotillion",
        "Royal Cotillion",
        "Aces and deuces laid out, suits built up in twos; a single pass.",
    ),
    Variant("gavotte", "Gavotte", "Royal Cotillion with the bases dealt into play and a redeal."),
    Variant(
        "odd-and-even", "Odd and Even", "A nine-card reserve fed from the stock; build in twos."
    ),
    Variant(
        "contradance", "Contradance", "Fives down to the king, sixes up to the queen, waste only."
    ),
    Variant(
        "royal-rendezvous",
        "Royal Rendezvous",
        "Aces build in ones and twos, deuces in twos; sixteen in reserve.",
    ),
    Variant(
        "royal-rendezvous-solsuite",
        "Royal Rendezvous (SolSuite)",
        "As Royal Rendezvous; an upper ace waits for its lower one's king.",
    ),
    Variant(
        "grand-duchess",
        "Grand Duchess",
        "Four piles and a blind reserve; aces build up, kings down.",
    ),
    Variant(
        "parisienne", "Parisienne", "Grand Duchess with one ace and one king per suit laid out."
    ),
    Variant(
        "royal-parade",
        "Royal Parade",
        "Twos, threes and fours head their rows; build each up by threes.",
    ),
    Variant(
        "royal-parade-bergholt",
        "Bergholt's Royal Parade",
        "Royal Parade with aces to discard and a last deal either way.",
    ),
    Variant(
        "virginia-reel",
        "Virginia Reel",
        "Royal Parade with a head start; aces discarded, misplaced bases swap.",
    ),
)

_TITLES = {variant.id: variant.title for variant in VARIANTS}


def title_of(variant: str) -> str:
    """The variant's title, or its id for one this client has not heard of."""
    return _TITLES.get(variant, variant)
