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
    "contradance": (0, 4, 5, 6),
    "royal-parade": (0, 3, 6, 14),
}
#: Their answers for :data:`RULE`: candidate -> the outcome and the positions the solver
#: searched (the count shows a changed search before an answer does).
ANSWERS: dict[str, dict[int, tuple[str, int]]] = {
    "contradance": {
        0: ("unwinnable", 2),
        4: ("winnable", 303),
        5: ("unwinnable", 100),
        6: ("unwinnable", 415),
    },
    "gavotte": {
        0: ("winnable", 185),
        1: ("winnable", 200),
        2: ("winnable", 215),
        3: ("winnable", 185),
    },
    "grand-duchess": {
        0: ("winnable", 6885),
        1: ("unknown", 20001),
        2: ("winnable", 316),
        3: ("winnable", 2213),
    },
    "odd-and-even": {
        0: ("winnable", 13030),
        1: ("unknown", 20001),
        2: ("winnable", 13289),
        3: ("unknown", 20001),
    },
    "parisienne": {
        0: ("unknown", 20001),
        1: ("winnable", 6144),
        2: ("winnable", 2146),
        3: ("winnable", 134),
    },
    "quadrille": {
        0: ("winnable", 163),
        1: ("unwinnable", 2),
        2: ("unwinnable", 2),
        3: ("winnable", 150),
    },
    "royal-cotillion": {
        0: ("winnable", 133),
        1: ("winnable", 149),
        2: ("winnable", 181),
        3: ("winnable", 248),
    },
    "royal-parade": {
        0: ("unknown", 20001),
        3: ("winnable", 11180),
        6: ("winnable", 786),
        14: ("unwinnable", 8),
    },
    "royal-parade-bergholt": {
        0: ("unknown", 20001),
        1: ("winnable", 984),
        2: ("unwinnable", 2),
        3: ("unknown", 20001),
    },
    "royal-rendezvous": {
        0: ("winnable", 157),
        1: ("winnable", 660),
        2: ("unknown", 20001),
        3: ("unknown", 20001),
    },
    "royal-rendezvous-solsuite": {
        0: ("unknown", 20001),
        1: ("winnable", 15663),
        2: ("winnable", 166),
        3: ("unknown", 20001),
    },
    "virginia-reel": {
        0: ("unknown", 20001),
        1: ("winnable", 103),
        2: ("unknown", 20001),
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
    assert RULE == 8, "a new RULE: write its answers into ANSWERS"
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
    # The version before dealt candidate 2 of draw 0 in Quadrille (0 and 1 are lost).
    # The versions since changed only the games with a reserve (safe moves from it, then
    # a beam), the Parade games (their proofs, safe builds and Royal Parade's beam), the
    # Duchess games (a beam), Contradance (its twins' proof) and the Parade games again
    # (their chains' proof), which Quadrille is not:
    # its answers are the same, so the earlier version's check can still be run here.
    draw = 0
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
