"""Winnable deals that a third party can check: the first winnable candidate of a draw.

A race that asks for a winnable deal does not search at random. The server
draws one secret number, the **draw**, and from it a fixed sequence of
candidate seeds (:func:`candidate_seed`: SHA-256 of
``ballroom-winnable/v1/{variant}/{deal_version}/{draw}/{k}``, first 8 bytes,
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
limit, gives the same answer on every machine (for the same solver).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from server.engine import Game
from server.engine.solver import solve_deal, verify_line

__all__ = [
    "CANDIDATES",
    "NODES",
    "WinnableChoice",
    "candidate_seed",
    "check_choice",
    "choose_winnable",
]

#: Candidates tried before the plain-deal fallback.
CANDIDATES = 16
#: Positions the solver may search per candidate: a count, so every machine agrees.
NODES = 20_000


def candidate_seed(variant: str, deal_version: int, draw: int, k: int) -> int:
    """Candidate ``k`` of ``draw``: a 64-bit seed (docs/protocol.md, "Winnable deals")."""
    text = f"ballroom-winnable/v1/{variant}/{deal_version}/{draw}/{k}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


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
        solution = solve_deal(game, seed, deal_version, nodes=nodes)
        if solution.won:
            return WinnableChoice(draw, k, seed, solution.line)
    return WinnableChoice(draw, 0, candidate_seed(game.id, deal_version, draw, 0), ())


def check_choice(
    game: Game,
    deal_version: int,
    *,
    draw: int,
    pick: int,
    seed: int,
    line: Sequence[str],
    nodes: int = NODES,
) -> list[str]:
    """What is wrong with a revealed winnable deal (empty: it checks out).

    The seed must be candidate ``pick`` of ``draw``, the line must win it, and
    no candidate before it may be proved winnable in ``nodes`` positions.
    """
    problems: list[str] = []
    if candidate_seed(game.id, deal_version, draw, pick) != seed:
        problems.append(f"seed {seed} is not candidate {pick} of draw {draw}")
    if not verify_line(game, game.deal(seed, deal_version), line):
        problems.append("the line does not win the deal")
    for k in range(pick):
        earlier = candidate_seed(game.id, deal_version, draw, k)
        if solve_deal(game, earlier, deal_version, nodes=nodes).won:
            problems.append(f"candidate {k} (seed {earlier}) is winnable too, and comes first")
    return problems
