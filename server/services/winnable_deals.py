"""Winnable deals for races that ask for one, chosen so that anyone can check the choice.

The server draws a secret number and deals the first of its candidates the
solver proves winnable (:mod:`server.rules.winnable`); the search runs in the
node's solver pool, bounded by :attr:`~server.settings.Solving.winnable`
seconds, after which the race gets candidate 0 as a plain deal, marked as
the fallback.
"""

from __future__ import annotations

import time

from server.engine import Game, find_variant
from server.rules.winnable import WinnableChoice, candidate_seed, choose_winnable
from server.services.solving import SolverPool
from server.storage.draws import draw_secret_seed

__all__ = ["choose_in_worker", "winnable_choice"]


def choose_in_worker(
    variant: str, draw: int, deal_version: int, seconds: float
) -> tuple[int, int, tuple[str, ...]]:
    """What a solver worker runs: (pick, seed, line) of ``draw``'s first winnable candidate,
    no new candidate tried after ``seconds``."""
    deadline = time.monotonic() + seconds
    choice = choose_winnable(
        find_variant(variant), draw, deal_version, out_of_time=lambda: time.monotonic() > deadline
    )
    return choice.pick, choice.seed, choice.line


async def winnable_choice(pool: SolverPool, game: Game, deal_version: int) -> WinnableChoice:
    """A fresh secret draw's winnable deal, or (past the time bound) its candidate 0."""
    draw = draw_secret_seed()
    seconds = pool.solving.winnable
    found = None
    if seconds > 0:
        found = await pool.run(seconds, choose_in_worker, game.id, draw, deal_version, seconds)
    if found is None:
        return WinnableChoice(draw, 0, candidate_seed(game.id, deal_version, draw, 0), ())
    pick, seed, line = found
    return WinnableChoice(draw, pick, seed, tuple(line))
