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
    choose_winnable,
    rule_of,
)

#: The draw whose candidates sample the answers.
DRAW = 2026
#: Which of its candidates, per variant: the first four, but where those are all unknown
#: (the Parades), later ones that the solver decides.
SAMPLED = {"royal-parade": (0, 5, 6, 9), "royal-parade-bergholt": (0, 9, 13, 14)}
#: Their answers for :data:`RULE`: candidate -> the outcome and the positions the solver
#: searched (the count shows a changed search before an answer does).
ANSWERS: dict[str, dict[int, tuple[str, int]]] = {
    "contradance": {
        0: ("unwinnable", 6790),
        1: ("unknown", 20001),
        2: ("unwinnable", 2),
        3: ("unknown", 20001),
    },
    "gavotte": {
        0: ("winnable", 174),
        1: ("winnable", 173),
        2: ("winnable", 225),
        3: ("winnable", 189),
    },
    "grand-duchess": {
        0: ("winnable", 152),
        1: ("unknown", 20001),
        2: ("unknown", 20001),
        3: ("winnable", 150),
    },
    "odd-and-even": {
        0: ("winnable", 308),
        1: ("unknown", 20001),
        2: ("unknown", 20001),
        3: ("unknown", 20001),
    },
    "parisienne": {
        0: ("winnable", 137),
        1: ("winnable", 7518),
        2: ("winnable", 2141),
        3: ("winnable", 934),
    },
    "quadrille": {
        0: ("winnable", 155),
        1: ("unwinnable", 2),
        2: ("winnable", 159),
        3: ("unwinnable", 2),
    },
    "royal-cotillion": {
        0: ("winnable", 528),
        1: ("winnable", 144),
        2: ("winnable", 241),
        3: ("unknown", 20001),
    },
    "royal-parade": {
        0: ("unknown", 20001),
        5: ("winnable", 9936),
        6: ("unwinnable", 18),
        9: ("winnable", 6985),
    },
    "royal-parade-bergholt": {
        0: ("unknown", 20001),
        9: ("winnable", 1109),
        13: ("winnable", 108),
        14: ("winnable", 132),
    },
    "royal-rendezvous": {
        0: ("winnable", 155),
        1: ("winnable", 17507),
        2: ("winnable", 395),
        3: ("winnable", 4544),
    },
    "royal-rendezvous-solsuite": {
        0: ("unknown", 20001),
        1: ("winnable", 162),
        2: ("winnable", 390),
        3: ("winnable", 167),
    },
    "virginia-reel": {
        0: ("unknown", 20001),
        1: ("winnable", 6355),
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
    assert RULE == 1, "a new RULE: write its answers into ANSWERS"
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
    """A checker of version 2 given version 1's choice says which version to check it with,
    rather than solve its earlier candidates with a solver that may answer otherwise."""
    choice = choose_winnable(QUADRILLE, 1, DEAL_VERSION)
    assert choice.proved
    check = functools.partial(
        check_choice, draw=1, pick=choice.pick, seed=choice.seed, line=choice.line
    )
    assert check(QUADRILLE, DEAL_VERSION) == []
    assert check(QUADRILLE, DEAL_VERSION, rule=2) == [
        "chosen by version 1 of the winnable-deal rule, not 2: "
        "check it with a Ballroom release of version 1"
    ]
    fallback = candidate_seed("quadrille", DEAL_VERSION, 1, 0)
    assert check_fallback("quadrille", DEAL_VERSION, draw=1, pick=0, seed=fallback, rule=2)
    assert not check_fallback("quadrille", DEAL_VERSION, draw=1, pick=1, seed=fallback, rule=2)


if __name__ == "__main__":
    for name in sorted(VARIANTS):
        print(f"    {name!r}: {answers(name)!r},")
