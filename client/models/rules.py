"""Each variant's rules in the engine's own words, for the rules screen (``?``).

Written by ``python -m tests.client.make_rules`` from the engine's descriptions;
edit the engine's docstrings, not this file. A test checks the copy is current.
A family's rules (its engine module's docstring) are written once and follow the
words of each of its variants.
"""

from __future__ import annotations

__all__ = ["RULES"]

#: Each family's rules, shared by its variants: by the engine module's name.
_FAMILIES: dict[str, str] = {
    "cotillion": (
        "Royal Cotillion and its kin: foundations built by suit in twos with "
        "wrap.\n\nAn ace foundation builds A-3-5-7-9-J-K-2-4-6-8-10-Q and a deuce "
        "foundation 2-4-6-8-10-Q-A-3-5-7-9-J-K, each in one suit. The games "
        "differ in whether the foundations start laid out, the ladies' and "
        "lords' sides, and redeals. Contradance, a cousin, builds down from "
        "fives and up from sixes instead."
    ),
    "duchess": (
        "Grand Duchess (Duchess de Luynes) and Parisienne: a reserve built "
        "blind.\n\nEach deal puts one card on each of four tableau piles and two "
        "face down on a reserve that stays unusable until the stock runs out; "
        "then the reserve turns face up and every card in it is available. "
        "Three redeals gather the tableau and the reserve into a new stock; the "
        "deals after the third make no reserve. Eight foundations per game: "
        "each suit has one ace foundation built up to K and one king foundation "
        "built down to A.\n\nRulings (docs/rules/, and docs/rules/duchess.md): "
        "the new stock deals pile 4 bottom to top, then piles 3, 2 and 1, then "
        "the reserve in the order it was dealt; a redeal needs at least one "
        "card to gather."
    ),
    "parade": (
        "Royal Parade, Bergholt's Royal Parade and Virginia Reel.\n\nTwenty-four "
        "cards form the Parade, three rows of eight. Where a row's base card "
        "lies (a 2 in the top row, a 3 in the middle, a 4 in the bottom) it is "
        "a foundation in place, built up by suit in threes to J, Q or K; every "
        "other Parade card is loose and waits to be built on some foundation, "
        "or, if it is a base card in the wrong row, to move into a space of its "
        "own row. Eight depots below take one card each per deal; only their "
        "top cards play.\n\nThere is no separate foundation pile: a Parade spot "
        "is a foundation exactly when its bottom card is its row's base, so "
        "that fact is read from the cards each time and never stored. The "
        "variants differ in what becomes of the aces (taken out, discarded from "
        "the Parade, discarded as they reach a depot with or without a "
        "replacement card), Bergholt's reversed final deal and Virginia Reel's "
        "head start and its swaps and rotations of misplaced base cards. "
        "Rulings on what the sources leave open are in docs/rules/parade.md."
    ),
    "quadrille": (
        "Quadrille (Captive Queens): one deck, twelve foundations, two redeals.\n\n"
        "Four centre piles hold one queen each; four compass piles build down "
        "by suit from 5 to A then K; four corner piles build up by suit from 6 "
        "to J. Every card has exactly one place, so the only choice is when to "
        "deal."
    ),
    "rendezvous": (
        "Royal Rendezvous: twelve laid-out foundations and a sixteen-card "
        "reserve.\n\nUpper aces build by ones to K, lower aces by twos to K, "
        "deuces by twos to Q. Reserve gaps take the waste top; with no waste "
        "card they wait for the next card dealt (ruling in docs/rules/)."
    ),
}

#: Each variant's family and its own words (its summary and its docstring).
_VARIANTS: dict[str, tuple[str, str]] = {
    "contradance": (
        "cotillion",
        (
            "Fives build down to the king, sixes up to the queen, from the waste "
            "alone.\n\nSixteen laid-out foundations: fives down to A then K, sixes up "
            "to Q."
        ),
    ),
    "gavotte": (
        "cotillion",
        (
            "Royal Cotillion, but aces and deuces start the foundations in play; "
            "one redeal.\n\nRoyal Cotillion with foundations started in play and one "
            "redeal.\n\nRuling (docs/rules/): any available ace or deuce starts the "
            "foundation of its suit; the waste may be turned over once, order "
            "preserved."
        ),
    ),
    "grand-duchess": (
        "duchess",
        (
            "Deal four to the tableau and two to a blind reserve; aces up, kings "
            "down.\n\nFour tableau piles, a face-down reserve, ace and king "
            "foundations; three redeals."
        ),
    ),
    "odd-and-even": (
        "cotillion",
        (
            "Nine-card reserve; aces and deuces start foundations built in twos; "
            "one redeal.\n\nA 3x3 reserve refilled from waste or stock; foundations "
            "start in play."
        ),
    ),
    "parisienne": (
        "duchess",
        (
            "Grand Duchess with an ace and a king of each suit already on the "
            "foundations.\n\nGrand Duchess with one ace and one king of each suit "
            "laid out to start."
        ),
    ),
    "quadrille": (
        "quadrille",
        (
            "One deck: queens to the centre, fives build down, sixes build up; two "
            "redeals.\n\nQueens in the centre, fives down on the compass points, "
            "sixes up in the corners."
        ),
    ),
    "royal-cotillion": (
        "cotillion",
        (
            "Build up in twos from laid-out aces and deuces; one pass through the "
            "stock.\n\nLadies' side of 12, lords' side of 16, foundations laid out, "
            "no redeal."
        ),
    ),
    "royal-parade": (
        "parade",
        (
            "Found 2s, 3s and 4s in their rows of the Parade and build by threes to "
            "J, Q, K.\n\nTarbart's game: the aces are out, no discard pile, deals "
            "only left to right."
        ),
    ),
    "royal-parade-bergholt": (
        "parade",
        (
            "Royal Parade with the aces in play to discard, and a reversible final "
            "deal.\n\nAces stay in the pack and are discarded; the final deal may go "
            "right to left."
        ),
    ),
    "royal-rendezvous": (
        "rendezvous",
        (
            "Aces build by ones and by twos, deuces by twos; sixteen-card reserve, "
            "no redeal.\n\nOne pass through the stock; reserve of two rows of eight."
        ),
    ),
    "royal-rendezvous-solsuite": (
        "rendezvous",
        (
            "Royal Rendezvous where an upper ace takes its king only after the "
            "lower ace's.\n\nAn upper-ace foundation takes its K only after its "
            "lower-ace foundation is done."
        ),
    ),
    "virginia-reel": (
        "parade",
        (
            "Royal Parade with a head start of 2, 3 and 4, aces discarded and "
            "base-card swaps.\n\nA 2, 3 and 4 open the rows; aces are discarded; "
            "misplaced base cards may swap."
        ),
    ),
}

#: Each variant's whole rules text: its own words, then its family's.
RULES: dict[str, str] = {
    variant: "\n\n".join(part for part in (own, _FAMILIES[family]) if part)
    for variant, (family, own) in _VARIANTS.items()
}
