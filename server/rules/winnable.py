"""Winnable deals that a third party can check: the first winnable candidate of a draw.

A race that asks for a winnable deal does not search at random. The server
draws one secret number, the **draw**, and from it a fixed sequence of
candidate seeds (:func:`candidate_seed`: SHA-256 of
``ballroom-winnable/v{RULE}/{variant}/{deal_version}/{draw}/{k}``, first 8 bytes,
big-endian, for k = 0, 1, ...). It deals the first candidate the solver
proves winnable within :data:`NODES` positions, trying at most
:data:`CANDIDATES`; if none is proved (or the server runs out of time) it
deals candidate 0 as a plain deal, and says so (``fallback``).

The race commits to the seed dealt, as every race does; its results reveal
the seed, the draw and the candidate's number (``pick``). Since a candidate
is a hash of the draw, the server could not have dealt a seed other than
the draw's candidate ``pick``; anyone can recompute the candidates and run
the same bounded solve on the ones before ``pick`` (:func:`check_choice`) to
see that none of them was proved winnable: the deal is the first winnable
one, not one picked among several. The count of positions, unlike a time
limit, gives the same answer on every machine for the same solver, and
only for it: which candidates the solver proves within the bound is part of
the rule, whose version (:data:`RULE`) every candidate's text names. A
solver that answers one of them differently makes a new version, and a deal
shows by its seed which version chose it (:func:`rule_of`), so a checker of
another version says so instead of finding an earlier candidate winnable.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.engine import Game
from server.engine.solver import line_fault, solve_deal

__all__ = [
    "CANDIDATES",
    "NODES",
    "RULE",
    "WinnableChoice",
    "candidate_seed",
    "check_choice",
    "check_fallback",
    "choose_winnable",
    "proved_line",
    "rule_of",
]

#: Candidates tried before the plain-deal fallback. Every rule set but one finds its
#: first proved candidate among the first few; about one Contradance deal in
#: eighteen is winnable, so 16 held none in most of its draws (24 of 40), and 64
#: hold one in nearly all (38 of 40, at 0.35 s of CPU a draw). The checks do not
#: depend on it: a checker solves only the candidates before ``pick``.
CANDIDATES = 64
#: Positions the solver may search per candidate: a count, so every machine agrees.
NODES = 20_000
#: The rule's version, in every candidate's text: one more whenever the solver's
#: answers within :data:`NODES` change (tests/server/test_winnable_rule.py holds
#: a sample of them, and fails then).
RULE = 8


def candidate_seed(variant: str, deal_version: int, draw: int, k: int, rule: int = RULE) -> int:
    """Candidate ``k`` of ``draw`` under version ``rule``: a 64-bit seed (docs/protocol.md,
    "Winnable deals")."""
    text = f"ballroom-winnable/v{rule}/{variant}/{deal_version}/{draw}/{k}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def rule_of(
    variant: str, deal_version: int, *, draw: int, pick: int, seed: int, rule: int = RULE
) -> int | None:
    """The version, up to ``rule``, whose candidate ``pick`` of ``draw`` is ``seed`` (None:
    no version's is, so the seed is not the draw's)."""
    for version in range(rule, 0, -1):
        if candidate_seed(variant, deal_version, draw, pick, version) == seed:
            return version
    return None


@dataclass(frozen=True, slots=True)
class WinnableChoice:
    """The deal chosen from a draw: candidate ``pick``'s seed and, if proved, its line.

    ``line`` is empty for the fallback (candidate 0, not proved winnable).
    """

    draw: int
    pick: int
    seed: int
    line: tuple[str, ...]

    @property
    def proved(self) -> bool:
        return bool(self.line)


def choose_winnable(
    game: Game,
    draw: int,
    deal_version: int,
    *,
    candidates: int = CANDIDATES,
    nodes: int = NODES,
    out_of_time: Callable[[], bool] = lambda: False,
) -> WinnableChoice:
    """The first candidate of ``draw`` proved winnable within ``nodes`` positions, or the
    fallback (candidate 0) after ``candidates`` of them or once ``out_of_time()``."""
    for k in range(candidates):
        if out_of_time():
            break
        seed = candidate_seed(game.id, deal_version, draw, k)
        line = proved_line(game, seed, deal_version, nodes=nodes)
        if line:
            return WinnableChoice(draw, k, seed, line)
    return WinnableChoice(draw, 0, candidate_seed(game.id, deal_version, draw, 0), ())


def proved_line(game: Game, seed: int, deal_version: int, *, nodes: int = NODES) -> tuple[str, ...]:
    """Deal ``seed``'s winning line if the solver proves it winnable within ``nodes``
    positions, else empty: the rule's answer for one candidate."""
    return solve_deal(game, seed, deal_version, nodes=nodes).line


def check_choice(
    game: Game,
    deal_version: int,
    *,
    draw: int,
    pick: int,
    seed: int,
    line: Sequence[str],
    nodes: int = NODES,
    rule: int = RULE,
) -> list[str]:
    """What is wrong with a revealed winnable deal (empty: it checks out), checked by
    version ``rule`` of the rule (this server's).

    The seed must be candidate ``pick`` of ``draw``, the line must win it, and
    no candidate before it may be proved winnable in ``nodes`` positions. A
    deal chosen by an earlier version is not checked: this solver's answers
    are not that version's, so it says which version to check it with.
    """
    chosen_by = rule_of(game.id, deal_version, draw=draw, pick=pick, seed=seed, rule=rule)
    if chosen_by is not None and chosen_by != rule:
        return [
            f"chosen by version {chosen_by} of the winnable-deal rule, not {rule}: "
            f"check it with a Ballroom release of version {chosen_by}"
        ]
    problems: list[str] = []
    if chosen_by is None:
        problems.append(f"seed {seed} is not candidate {pick} of draw {draw}")
    fault = line_fault(game, game.deal(seed, deal_version), line)
    if fault is not None:
        problems.append(f"the line does not win the deal: {fault}")
    for k in range(pick):
        earlier = candidate_seed(game.id, deal_version, draw, k, rule)
        if proved_line(game, earlier, deal_version, nodes=nodes):
            problems.append(f"candidate {k} (seed {earlier}) is winnable too, and comes first")
    return problems


def check_fallback(
    variant: str, deal_version: int, *, draw: int, pick: int, seed: int, rule: int = RULE
) -> bool:
    """Whether a deal no solve was claimed for is its draw's fallback, candidate 0 (of any
    version up to ``rule``: the fallback does not depend on the solver)."""
    found = rule_of(variant, deal_version, draw=draw, pick=0, seed=seed, rule=rule)
    return pick == 0 and found is not None
