"""The winnable-deal rule's version: the solver's answers within the bound are part of it.

A winnable deal is its draw's first candidate that the solver proves within
:data:`~server.rules.winnable.NODES` positions, so a checker must get the
same answers as the server that chose it. A change to the solver that
answers a candidate differently (a new pruning, another move order) would
make every older record fail ``tournament verify``, blaming an honest
server for skipping a winnable candidate. :data:`ANSWERS` holds the
answers for a sample of candidates, and the tests below fail when they
change: then add one to :data:`~server.rules.winnable.RULE`, and write the
new answers here (``.venv/bin/python -m tests.server.test_winnable_rule``
prints them).
"""

from __future__ import annotations

import functools

import pytest

from server.engine import DEAL_VERSION, VARIANTS, find_variant
from server.engine.solver import solve_deal
from server.rules.winnable import (
    NODES,
    RULE,
    candidate_seed,
    check_choice,
    check_fallback,
    rule_of,
)

#: The draw whose candidates sample the answers.
DRAW = 2026
#: Which of its candidates, per variant: the first four, but where those are mostly unknown
#: (Contradance's are mostly proved lost at once, the Parades'), later ones too that the
#: solver decides.
SAMPLED = {
    "contradance": (0, 2, 7, 13),
    "royal-parade": (0, 4, 13, 15),
}
#: Their answers for :data:`RULE`: candidate -> the outcome and the positions the solver
#: searched (the count shows a changed search before an answer does).
ANSWERS: dict[str, dict[int, tuple[str, int]]] = {
    "contradance": {
        0: ("unwinnable", 2),
        2: ("winnable", 331),
        7: ("unwinnable", 2),
        13: ("winnable", 1892),
    },
    "gavotte": {
        0: ("winnable", 201),
        1: ("winnable", 194),
        2: ("winnable", 215),
        3: ("winnable", 160),
    },
    "grand-duchess": {
        0: ("winnable", 11741),
        1: ("unknown", 20001),
        2: ("winnable", 4785),
        3: ("unknown", 20001),
    },
    "odd-and-even": {
        0: ("winnable", 3646),
        1: ("unknown", 20001),
        2: ("unknown", 20001),
        3: ("unknown", 20001),
    },
    "parisienne": {
        0: ("winnable", 139),
        1: ("winnable", 138),
        2: ("winnable", 1138),
        3: ("winnable", 136),
    },
    "quadrille": {
        0: ("winnable", 162),
        1: ("winnable", 148),
        2: ("unwinnable", 2),
        3: ("winnable", 155),
    },
    "royal-cotillion": {
        0: ("winnable", 9882),
        1: ("winnable", 158),
        2: ("winnable", 150),
        3: ("winnable", 9599),
    },
    "royal-parade": {
        0: ("unwinnable", 20),
        4: ("winnable", 9025),
        13: ("winnable", 234),
        15: ("winnable", 9313),
    },
    "royal-parade-bergholt": {
        0: ("winnable", 6116),
        1: ("unknown", 20001),
        2: ("unknown", 20001),
        3: ("unknown", 20001),
    },
    "royal-rendezvous": {
        0: ("winnable", 163),
        1: ("unknown", 20001),
        2: ("unknown", 20001),
        3: ("winnable", 638),
    },
    "royal-rendezvous-solsuite": {
        0: ("unknown", 20001),
        1: ("winnable", 9305),
        2: ("winnable", 8296),
        3: ("winnable", 3544),
    },
    "virginia-reel": {
        0: ("unknown", 20001),
        1: ("winnable", 5731),
        2: ("winnable", 9234),
        3: ("unknown", 20001),
    },
}


def answers(variant: str) -> dict[int, tuple[str, int]]:
    """What this solver says of the sampled candidates of ``variant``."""
    game = find_variant(variant)
    found = {}
    for k in SAMPLED.get(variant, (0, 1, 2, 3)):
        seed = candidate_seed(game.id, DEAL_VERSION, DRAW, k)
        solution = solve_deal(game, seed, DEAL_VERSION, nodes=NODES)
        found[k] = (solution.outcome.value, solution.nodes)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_solver_answers_as_the_rule_says(variant: str) -> None:
    """The answers within the bound are this version's; if they changed, bump RULE."""
    assert RULE == 7, "a new RULE: write its answers into ANSWERS"
    assert answers(variant) == ANSWERS[variant], (
        "the solver's answers within NODES changed: add one to RULE (server/rules/winnable.py) "
        "and write the new answers here"
    )


QUADRILLE = find_variant("quadrille")


def test_a_seed_tells_which_version_chose_it() -> None:
    """Each version's candidates are different seeds, so the seed names its version."""
    v1 = candidate_seed("quadrille", DEAL_VERSION, 5, 2, rule=1)
    v2 = candidate_seed("quadrille", DEAL_VERSION, 5, 2, rule=2)
    assert v1 != v2
    assert rule_of("quadrille", DEAL_VERSION, draw=5, pick=2, seed=v1, rule=2) == 1
    assert rule_of("quadrille", DEAL_VERSION, draw=5, pick=2, seed=v2, rule=2) == 2
    assert rule_of("quadrille", DEAL_VERSION, draw=5, pick=1, seed=v2, rule=2) is None


def test_a_deal_of_an_earlier_version_is_not_blamed_on_this_solver() -> None:
    """A checker of this version given an earlier version's choice says which version to
    check it with, rather than solve its earlier candidates with a solver that may answer
    otherwise."""
    earlier = RULE - 1
    # The version before dealt candidate 2 of draw 2 in Quadrille (0 and 1 are lost).
    # The versions since changed only the games with a reserve (safe moves from it, then
    # a beam), the Parade games (their proofs, safe builds and Royal Parade's beam), the
    # Duchess games (a beam) and Contradance (its twins' proof), which Quadrille is not:
    # its answers are the same, so the earlier version's check can still be run here.
    draw = 2
    seed = candidate_seed("quadrille", DEAL_VERSION, draw, 2, rule=earlier)
    line = solve_deal(QUADRILLE, seed, DEAL_VERSION, nodes=NODES).line
    assert line
    check = functools.partial(check_choice, draw=draw, pick=2, seed=seed, line=line)
    assert check(QUADRILLE, DEAL_VERSION, rule=earlier) == []
    assert check(QUADRILLE, DEAL_VERSION) == [
        f"chosen by version {earlier} of the winnable-deal rule, not {RULE}: "
        f"check it with a Ballroom release of version {earlier}"
    ]
    fallback = candidate_seed("quadrille", DEAL_VERSION, 1, 0, rule=earlier)
    assert check_fallback("quadrille", DEAL_VERSION, draw=1, pick=0, seed=fallback)
    assert not check_fallback("quadrille", DEAL_VERSION, draw=1, pick=1, seed=fallback)


if __name__ == "__main__":
    for name in sorted(VARIANTS):
        print(f"    {name!r}: {answers(name)!r},")
