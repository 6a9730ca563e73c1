"""The variants a player can pick, with one line each: the server sends no descriptions.

Only names, a hint of what each game is like, and the smallest terminal
its board fits (so that the lobby can say so before a race starts, when the
layout has not come yet); the rules stay on the server. A variant the
server adds later can still be raced by id. ``tests/client/test_catalogue.py``
checks these lines against the engine's own summaries and layouts.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["VARIANTS", "Variant", "find", "title_of"]


class Variant(NamedTuple):
    id: str
    title: str
    line: str
    #: The smallest terminal (columns, lines) the game screen shows this board in.
    need: tuple[int, int] = (80, 24)


VARIANTS: tuple[Variant, ...] = (
    Variant(
        "quadrille",
        "Quadrille",
        "One deck. Queens sit in the centre; fives go down, sixes up.",
        (35, 16),
    ),
    Variant(
        "royal-cotillion",
        "Royal Cotillion",
        "Aces and deuces laid out, suits built up in twos; a single pass.",
        (70, 17),
    ),
    Variant(
        "gavotte",
        "Gavotte",
        "Royal Cotillion with the bases dealt into play and a redeal.",
        (70, 17),
    ),
    Variant(
        "odd-and-even",
        "Odd and Even",
        "A nine-card reserve fed from the stock; build in twos.",
        (56, 14),
    ),
    Variant(
        "contradance",
        "Contradance",
        "Fives down to the king, sixes up to the queen, waste only.",
        (56, 10),
    ),
    Variant(
        "royal-rendezvous",
        "Royal Rendezvous",
        "Aces build in ones and twos, deuces in twos; sixteen in reserve.",
        (56, 14),
    ),
    Variant(
        "royal-rendezvous-solsuite",
        "Royal Rendezvous (SolSuite)",
        "As Royal Rendezvous; an upper ace waits for its lower one's king.",
        (56, 14),
    ),
    Variant(
        "grand-duchess",
        "Grand Duchess",
        "Four piles and a blind reserve; aces build up, kings down.",
        (56, 15),
    ),
    Variant(
        "parisienne",
        "Parisienne",
        "Grand Duchess with one ace and one king per suit laid out.",
        (56, 15),
    ),
    Variant(
        "royal-parade",
        "Royal Parade",
        "Twos, threes and fours head their rows; build each up by threes.",
        (63, 15),
    ),
    Variant(
        "royal-parade-bergholt",
        "Bergholt's Royal Parade",
        "Royal Parade with aces to discard and a last deal either way.",
        (63, 15),
    ),
    Variant(
        "virginia-reel",
        "Virginia Reel",
        "Royal Parade with a head start; aces discarded, misplaced bases swap.",
        (63, 15),
    ),
)

_TITLES = {variant.id: variant.title for variant in VARIANTS}
_BY_ID = {variant.id: variant for variant in VARIANTS}


def find(variant: str) -> Variant | None:
    """The catalogue's entry for a variant id, or None for one this client has not heard of."""
    return _BY_ID.get(variant)


def title_of(variant: str) -> str:
    """The variant's title, or its id for one this client has not heard of."""
    return _TITLES.get(variant, variant)
